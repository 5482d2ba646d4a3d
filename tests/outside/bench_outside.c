/* SPDX-License-Identifier: MIT */
/* The tinygrad corpus through the whole simulator, against the same programs
 * written as plain C on the CPU (native), in one process. Each native program
 * is first checked against tinygrad's own CPU results (CASE/expected.json), so
 * both sides compute the same thing.
 *
 * BENCH name=outside.tinygrad value=<s> unit=s baseline=native ratio=<sim/native>
 *   value: the simulator's time for all 16 scenarios (parse, device, execute,
 *   judge), best of ROUNDS; baseline: the native programs' time, each repeated
 *   until it has run for MIN_NATIVE_S, per run.
 */
#include <json-glib/json-glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "chainsim/device.h"
#include "chainsim/report.h"
#include "chainsim/scenario.h"

enum { ROUNDS = 3, MAXN = 4096 };
#define MIN_NATIVE_S 0.02

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* tinygrad's inputs (record_tinygrad.py's seq). */
static void seq(float *o, int n, int mul, int mod, float scale, float off)
{
	for (int i = 0; i < n; i++)
		o[i] = (float)((i * mul) % mod) * scale + off;
}

static float A[MAXN], B[MAXN], C[MAXN], OUT[MAXN];
static unsigned char BYTES_IN[MAXN], BYTES_OUT[MAXN];

static void rowsum(const float *m, int rows, int cols, float *o)
{
	for (int r = 0; r < rows; r++) {
		float s = 0;
		for (int c = 0; c < cols; c++)
			s += m[r * cols + c];
		o[r] = s;
	}
}

static void matmul(int n)
{
	seq(A, n * n, 5, 23, 0.125f, -1.0f);
	seq(B, n * n, 11, 19, 0.0625f, -0.5f);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float s = 0;
			for (int k = 0; k < n; k++)
				s += A[i * n + k] * B[k * n + j];
			OUT[i * n + j] = s;
		}
}

/* relu(x * y), row sums, then the affine step: chain3 and each jit_graph run. */
static void mul_relu_rowsum(float scale, float bias)
{
	for (int i = 0; i < 256; i++)
		C[i] = fmaxf(A[i] * B[i], 0.0f);
	rowsum(C, 16, 16, OUT);
	for (int i = 0; i < 16; i++)
		OUT[i] = OUT[i] * scale + bias;
}

static int native_case(const char *name)
{
	if (!strcmp(name, "add_f32") || !strcmp(name, "timed_add")) {
		seq(A, 16, 37, 101, 0.125f, -6.0f);
		seq(B, 16, 13, 29, 0.5f, 1.0f);
		for (int i = 0; i < 16; i++)
			OUT[i] = A[i] + B[i];
		return 16;
	}
	if (!strcmp(name, "mul_f32")) {
		seq(A, 64, 37, 101, 0.125f, -6.0f);
		seq(B, 64, 7, 17, 0.25f, -2.0f);
		for (int i = 0; i < 64; i++)
			OUT[i] = A[i] * B[i];
		return 64;
	}
	if (!strcmp(name, "fma_f32")) {
		seq(A, 256, 37, 101, 0.125f, -6.0f);
		seq(B, 256, 7, 17, 0.25f, -2.0f);
		seq(C, 256, 3, 11, 1.0f, 0.5f);
		for (int i = 0; i < 256; i++)
			OUT[i] = A[i] * B[i] + C[i];
		return 256;
	}
	if (!strcmp(name, "symbolic_val")) {
		seq(A, 64, 37, 101, 0.125f, -6.0f);
		for (int i = 0; i < 64; i++)
			OUT[i] = A[i] * 2.0f + 7.0f;
		return 64;
	}
	if (!strcmp(name, "matmul16")) {
		matmul(16);
		return 256;
	}
	if (!strcmp(name, "matmul64")) {
		matmul(64);
		return 4096;
	}
	if (!strcmp(name, "sum_256")) {
		seq(A, 256, 37, 101, 0.125f, -6.0f);
		rowsum(A, 1, 256, OUT);
		return 1;
	}
	if (!strcmp(name, "sum_axis")) {
		seq(A, 1024, 3, 31, 0.25f, -3.0f);
		rowsum(A, 32, 32, OUT);
		return 32;
	}
	if (!strcmp(name, "softmax")) {
		seq(A, 128, 7, 13, 0.25f, -1.5f);
		for (int r = 0; r < 4; r++) {
			float m = -INFINITY, s = 0;
			for (int c = 0; c < 32; c++)
				m = fmaxf(m, A[r * 32 + c]);
			for (int c = 0; c < 32; c++)
				s += OUT[r * 32 + c] = expf(A[r * 32 + c] - m);
			for (int c = 0; c < 32; c++)
				OUT[r * 32 + c] /= s;
		}
		return 128;
	}
	if (!strcmp(name, "chain3")) {
		seq(A, 256, 37, 101, 0.125f, -6.0f);
		seq(B, 256, 7, 17, 0.25f, -2.0f);
		mul_relu_rowsum(2.0f, 1.0f);
		return 16;
	}
	if (!strcmp(name, "jit_graph")) {
		for (int k = 0; k < 3; k++) {
			seq(A, 256, 5 + k, 23, 0.125f, -1.0f);
			seq(B, 256, 11, 19, 0.0625f, -0.5f + (float)k);
			mul_relu_rowsum(0.5f, 1.0f);
		}
		return 16;
	}
	int bytes = !strcmp(name, "copy_16B") ? 16 : !strcmp(name, "copy_1KB") ? 1024
		  : !strcmp(name, "copy_16KB") ? 16384 : 0;
	if (bytes) { /* there and back */
		seq(A, bytes / 4, !strcmp(name, "copy_16KB") ? 97 : 37,
		    !strcmp(name, "copy_16KB") ? 1009 : 101, !strcmp(name, "copy_16KB") ? 0.01f : 0.125f,
		    !strcmp(name, "copy_16KB") ? -5.0f : -6.0f);
		memcpy(C, A, (size_t)bytes);
		memcpy(OUT, C, (size_t)bytes);
		return bytes / 4;
	}
	if (!strcmp(name, "copy_u8_1000")) {
		for (int i = 0; i < 1000; i++)
			BYTES_IN[i] = (unsigned char)((i * 7 + 3) % 256);
		memcpy(BYTES_OUT, BYTES_IN, 1000);
		return -1000;
	}
	return 0;
}

/* The native program computes tinygrad's CPU results (relative error 1e-4). */
static void check_native(const char *dir, const char *name, int n)
{
	char *path = g_strdup_printf("%s/%s/expected.json", dir, name);
	JsonParser *p = json_parser_new();
	GError *err = NULL;
	if (!json_parser_load_from_file(p, path, &err)) {
		fprintf(stderr, "bench_outside: %s: %s\n", path, err->message);
		exit(1);
	}
	JsonArray *vals = json_object_get_array_member(json_node_get_object(json_parser_get_root(p)),
						       "values");
	int count = n < 0 ? -n : n;
	if (!vals || (int)json_array_get_length(vals) != count) {
		fprintf(stderr, "bench_outside: %s: %d values expected, the native program has %d\n",
			path, vals ? (int)json_array_get_length(vals) : 0, count);
		exit(1);
	}
	for (int i = 0; i < count; i++) {
		double want = json_array_get_double_element(vals, (guint)i);
		double got = n < 0 ? BYTES_OUT[i] : OUT[i];
		if (fabs(got - want) > 1e-4 * fmax(1.0, fabs(want))) {
			fprintf(stderr, "bench_outside: %s: native value %d is %g, tinygrad's %g\n", name,
				i, got, want);
			exit(1);
		}
	}
	g_object_unref(p);
	g_free(path);
}

static double native_time(const char *name)
{
	long reps = 0;
	double t0 = now_s(), t;
	do {
		native_case(name);
		reps++;
	} while ((t = now_s() - t0) < MIN_NATIVE_S);
	return t / (double)reps;
}

/* One scenario through the library; exits when it does not complete. */
static double sim_time(const char *dir, const char *name)
{
	char *path = g_strdup_printf("%s/%s.chain", dir, name);
	cs_diag d;
	double t0 = now_s();
	cs_scenario *s = cs_scenario_load(path, &d);
	cs_device_config cfg = { .arch = s ? cs_scenario_arch(s) : CS_ARCH_HOPPER };
	cs_device *dev = s ? cs_device_new(&cfg, &d) : NULL;
	bool ok = dev && cs_scenario_execute(s, dev, &d);
	cs_report *r = ok ? cs_report_build(dev) : NULL;
	double t = now_s() - t0;
	for (size_t i = 0; ok && i < cs_scenario_expect_count(s); i++)
		ok = cs_scenario_expect(s, i)->held;
	if (!ok || !r || r->overall.first_break != CS_STAGE_NONE) {
		fprintf(stderr, "bench_outside: %s does not complete with its results (%s)\n", path,
			d.msg);
		exit(1);
	}
	cs_report_free(r);
	cs_device_free(dev);
	cs_scenario_free(s);
	g_free(path);
	return t;
}

int main(void)
{
	static const char *const cases[] = {
		"add_f32", "mul_f32", "fma_f32", "symbolic_val", "timed_add", "matmul16",
		"matmul64", "sum_256", "sum_axis", "softmax", "chain3", "jit_graph",
		"copy_16B", "copy_1KB", "copy_16KB", "copy_u8_1000",
	};
	const char *root = getenv("CHAINSIM_SOURCE_ROOT");
	char *dir = g_strdup_printf("%s/tests/outside", root ? root : ".");
	double sim = 0, native = 0;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		int n = native_case(cases[c]);
		if (!n) {
			fprintf(stderr, "bench_outside: no native program for %s\n", cases[c]);
			return 1;
		}
		check_native(dir, cases[c], n);
		native += native_time(cases[c]);
		double best = INFINITY;
		for (int r = 0; r < ROUNDS; r++)
			best = fmin(best, sim_time(dir, cases[c]));
		sim += best;
	}
	printf("BENCH name=outside.tinygrad value=%.6f unit=s baseline=native ratio=%.0f "
	       "cases=%zu native_s=%.7f\n", sim, sim / native, sizeof(cases) / sizeof(cases[0]),
	       native);
	g_free(dir);
	return 0;
}
