// Sample kernels whose nvcc -ptx output the ptxrun tests parse and run.
#include <cuda_runtime.h>
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		c[i] = a[i] + b[i];
}

#define TILE 16
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n)
{
	__shared__ float As[TILE][TILE];
	__shared__ float Bs[TILE][TILE];
	int row = blockIdx.y * TILE + threadIdx.y;
	int col = blockIdx.x * TILE + threadIdx.x;
	float acc = 0.0f;
	for (int t = 0; t < n; t += TILE) {
		As[threadIdx.y][threadIdx.x] = A[row * n + t + threadIdx.x];
		Bs[threadIdx.y][threadIdx.x] = B[(t + threadIdx.y) * n + col];
		__syncthreads();
		for (int k = 0; k < TILE; k++)
			acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
		__syncthreads();
	}
	C[row * n + col] = acc;
}

extern "C" __global__ void softmax(const float *x, float *y, int cols)
{
	const float *row = x + blockIdx.x * cols;
	float m = -INFINITY;
	for (int i = threadIdx.x; i < cols; i += 32)
		m = fmaxf(m, row[i]);
	for (int o = 16; o > 0; o >>= 1)
		m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
	float s = 0.0f;
	for (int i = threadIdx.x; i < cols; i += 32)
		s += expf(row[i] - m);
	for (int o = 16; o > 0; o >>= 1)
		s += __shfl_down_sync(0xffffffff, s, o);
	s = __shfl_sync(0xffffffff, s, 0);
	for (int i = threadIdx.x; i < cols; i += 32)
		y[blockIdx.x * cols + i] = expf(row[i] - m) / s;
}

extern "C" __global__ void gelu(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		float v = x[i];
		y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
		y[i + n] = 0.5f * v * (1.0f + erff(v * 0.70710678f));
	}
}

extern "C" __global__ void reduce(const int *x, int *sum, unsigned *mx, int n)
{
	extern __shared__ int buf[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	int v = i < n ? x[i] : 0;
	buf[threadIdx.x] = v;
	__syncthreads();
	for (int s = blockDim.x / 2; s > 0; s >>= 1) {
		if (threadIdx.x < s)
			buf[threadIdx.x] += buf[threadIdx.x + s];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		atomicAdd(sum, buf[0]);
	atomicMax(mx, (unsigned)v);
	unsigned b = __ballot_sync(0xffffffff, v & 1);
	if (__all_sync(0xffffffff, v >= 0) && (threadIdx.x & 31) == 0)
		atomicAdd((unsigned *)sum + 1, __popc(b));
}

__device__ __noinline__ float addmul(float a, float b, int k)
{
	float r = 0;
	for (int i = 0; i < k; i++)
		r += a * b + (float)i;
	return r;
}

__device__ int counter;
__constant__ float coef[4] = {1.0f, 2.0f, 3.0f, 4.0f};

extern "C" __global__ void misc(float *out, double *dout, long long *lout, int k)
{
	int t = threadIdx.x;
	float f = (float)t * 0.37f - 3.0f;
	out[t] = addmul(f, coef[t & 3], k) + sqrtf(fabsf(f)) + rsqrtf(1.0f + t) + __sinf(f) + __cosf(f) + log2f(1.0f + t) + __fdividef(f, 3.0f);
	double d = (double)t * 1.5;
	dout[t] = d / 7.0 + sqrt(d) + fma(d, d, 1.0);
	lout[t] = (long long)f * (long long)t + (unsigned)t / 3u + t % 5 + __clz(t) + __brev(t) + (int)(f * 1e10f);
	atomicAdd(&counter, 1);
	if (t == 0)
		atomicCAS((int *)lout, 0, 5);
}

// Control flow that diverges per lane: nested loops with continue and break,
// an early return and a switch; the active mask is recorded at the end.
extern "C" __global__ void flow(const int *in, int *out)
{
	int t = threadIdx.x;
	int v = in[t];
	int acc = 0;
	for (int i = 0; i < (v & 15); i++) {
		if (i % 3 == 0)
			continue;
		for (int j = 0; j < i; j++) {
			if ((v >> j) & 1)
				acc += j;
			else if (j > 5)
				break;
		}
		if (acc > 100)
			break;
		acc ^= i;
	}
	if (v < 0) {
		out[t] = -1;
		out[t + blockDim.x] = (int)__activemask();
		return;
	}
	switch (v % 4) {
	case 0: acc += 1; break;
	case 1: acc *= 3; break;
	case 2: acc -= 7; // fall through
	default: acc += 2;
	}
	out[t] = acc;
	out[t + blockDim.x] = (int)__activemask();
}
