/* A Zstandard frame decoder, written from RFC 8878, for the entries nvcc 13
 * compresses inside fatbins. Decoder only, no dictionaries. Every read of the
 * input and every write of the output is bounds-checked; a malformed frame is
 * an error naming the byte offset (in the file: the caller passes where the
 * frame starts) and what was wrong. The content checksum (XXH64), when the
 * frame carries one, is verified. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "module_internal.h"

#define ZS_MAGIC 0xfd2fb528u

enum {
	ZS_BLOCK_MAX = 128 * 1024,
	ZS_LL_MAX = 35, ZS_ML_MAX = 52, ZS_OF_MAX = 31,
	ZS_LL_AL_MAX = 9, ZS_ML_AL_MAX = 9, ZS_OF_AL_MAX = 8,
	ZS_HUF_BITS_MAX = 11,
	ZS_FSE_TABLE_MAX = 1 << 9,
};

typedef struct zs_fse_entry {
	uint16_t base;
	uint8_t sym;
	uint8_t bits;
} zs_fse_entry;

typedef struct zs_fse {
	zs_fse_entry t[ZS_FSE_TABLE_MAX];
	unsigned al; /* accuracy log */
	bool ok;
} zs_fse;

typedef struct zs_huf {
	uint8_t sym[1 << ZS_HUF_BITS_MAX];
	uint8_t bits[1 << ZS_HUF_BITS_MAX];
	unsigned max_bits;
	bool ok;
} zs_huf;

typedef struct zs {
	const uint8_t *src;
	size_t len;
	uint64_t base;          /* file offset of src[0] */
	const char *name;
	cs_diag *d;
	uint8_t *dst;
	size_t cap, pos;
	zs_fse ll, of, ml;      /* the previous block's tables, for Repeat mode */
	zs_huf huf;             /* the previous block's Huffman table, for treeless */
	uint32_t rep[3];
	uint8_t lit[ZS_BLOCK_MAX];
} zs;

static bool zfail(zs *z, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool zfail(zs *z, size_t at, const char *fmt, ...)
{
	char msg[CS_DIAG_MSG_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cs_diag_at_offset(z->d, CS_ERR_INPUT, z->name, z->base + at, "zstd: %s", msg);
	return false;
}

/* ---- bit readers ------------------------------------------------------------ */

/* Forward, little-endian bit order (FSE table descriptions). */
typedef struct zs_fwd {
	const uint8_t *p;
	size_t len;   /* bytes available */
	uint64_t bit; /* bits consumed */
} zs_fwd;

static uint32_t fwd_peek(const zs_fwd *f, unsigned n)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t b = f->bit + i;
		if (b / 8 < f->len && (f->p[b / 8] >> (b % 8)) & 1u)
			v |= 1u << i;
	}
	return v;
}

/* Backward streams: the last byte's highest set bit is a marker; bits are
 * consumed from there towards bit 0 of the first byte. Past the start, zeros
 * are read and pos goes negative (the decoders use that as "overflowed"). */
typedef struct zs_back {
	const uint8_t *p;
	size_t len;  /* bytes in the stream */
	int64_t pos; /* bits left before the start */
} zs_back;

static bool back_init(zs *z, zs_back *b, const uint8_t *p, size_t n, size_t at)
{
	if (n == 0 || p[n - 1] == 0)
		return zfail(z, at + (n ? n - 1 : 0), "bitstream without its end marker");
	unsigned hb = 7;
	while (!((p[n - 1] >> hb) & 1u))
		hb--;
	b->p = p;
	b->len = n;
	b->pos = (int64_t)(n - 1) * 8 + hb;
	return true;
}

static uint32_t back_peek(const zs_back *b, unsigned n)
{
	if (n == 0)
		return 0;
	int64_t lo = b->pos - (int64_t)n;
	if (lo >= 0) {
		/* the common case: up to 32 bits at a shift below 8, from at most
		 * 8 bytes inside the stream */
		size_t byte = (size_t)(lo >> 3), avail = b->len - byte;
		uint64_t w = 0;
		for (size_t i = 0; i < 8 && i < avail; i++)
			w |= (uint64_t)b->p[byte + i] << (8 * i);
		return (uint32_t)((w >> (lo & 7)) & ((1ull << n) - 1));
	}
	uint32_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		int64_t bit = b->pos - (int64_t)n + (int64_t)i;
		if (bit >= 0 && ((b->p[bit / 8] >> (bit % 8)) & 1u))
			v |= 1u << i;
	}
	return v;
}

static uint32_t back_read(zs_back *b, unsigned n)
{
	uint32_t v = back_peek(b, n);
	b->pos -= n;
	return v;
}

static unsigned highbit(uint32_t v)
{
	unsigned r = 0;
	while (v >>= 1)
		r++;
	return r;
}

/* ---- FSE -------------------------------------------------------------------- */

static bool fse_build(zs *z, zs_fse *f, const int16_t *prob, unsigned nsym, unsigned al, size_t at)
{
	unsigned size = 1u << al, high = size - 1;
	uint16_t next[64];
	memset(f->t, 0, sizeof(f->t[0]) * size);
	for (unsigned s = 0; s < nsym; s++) {
		if (prob[s] == -1) {
			f->t[high--].sym = (uint8_t)s;
			next[s] = 1;
		} else {
			next[s] = (uint16_t)(prob[s] > 0 ? prob[s] : 0);
		}
	}
	unsigned step = (size >> 1) + (size >> 3) + 3, mask = size - 1, pos = 0;
	for (unsigned s = 0; s < nsym; s++)
		for (int i = 0; i < prob[s]; i++) {
			f->t[pos].sym = (uint8_t)s;
			do
				pos = (pos + step) & mask;
			while (pos > high);
		}
	if (pos != 0)
		return zfail(z, at, "FSE distribution does not fill its table");
	for (unsigned u = 0; u < size; u++) {
		unsigned s = f->t[u].sym;
		unsigned ns = next[s]++;
		if (ns == 0)
			return zfail(z, at, "FSE table state without a symbol");
		unsigned nb = al - highbit(ns);
		f->t[u].bits = (uint8_t)nb;
		f->t[u].base = (uint16_t)((ns << nb) - size);
	}
	f->al = al;
	f->ok = true;
	return true;
}

/* Reads an FSE table description at src[*at...]; advances *at. */
static bool fse_read(zs *z, zs_fse *f, size_t *at, size_t end, unsigned max_sym, unsigned max_al)
{
	zs_fwd r = { z->src + *at, end - *at, 0 };
	if (r.len == 0)
		return zfail(z, *at, "FSE table description missing");
	unsigned al = fwd_peek(&r, 4) + 5;
	r.bit = 4;
	if (al > max_al)
		return zfail(z, *at, "FSE accuracy log %u above %u", al, max_al);
	int remaining = (1 << al) + 1;
	int threshold = 1 << al;
	unsigned nbits = al + 1, sym = 0;
	int16_t prob[64] = { 0 };
	while (remaining > 1 && sym <= max_sym) {
		int max = (2 * threshold - 1) - remaining;
		int v;
		uint32_t low = fwd_peek(&r, nbits - 1);
		if ((int)low < max) {
			v = (int)low;
			r.bit += nbits - 1;
		} else {
			v = (int)fwd_peek(&r, nbits);
			if (v >= threshold)
				v -= max;
			r.bit += nbits;
		}
		int p = v - 1;
		remaining -= p < 0 ? -p : p;
		prob[sym++] = (int16_t)p;
		if (p == 0) {
			for (;;) {
				unsigned rep = fwd_peek(&r, 2);
				r.bit += 2;
				for (unsigned i = 0; i < rep && sym <= max_sym; i++)
					prob[sym++] = 0;
				if (rep != 3)
					break;
				if (r.bit / 8 > r.len)
					break;
			}
		}
		while (remaining < threshold && threshold > 1) {
			nbits--;
			threshold >>= 1;
		}
		if ((r.bit + 7) / 8 > r.len)
			return zfail(z, *at, "FSE table description runs past its block");
	}
	if (remaining != 1)
		return zfail(z, *at, "FSE probabilities do not sum to 2^%u", al);
	if (!fse_build(z, f, prob, sym, al, *at))
		return false;
	*at += (size_t)((r.bit + 7) / 8);
	return true;
}

static void fse_rle(zs_fse *f, uint8_t sym)
{
	f->t[0].sym = sym;
	f->t[0].bits = 0;
	f->t[0].base = 0;
	f->al = 0;
	f->ok = true;
}

/* ---- Huffman literals -------------------------------------------------------- */

static bool huf_build(zs *z, zs_huf *h, uint8_t *w, unsigned n, size_t at)
{
	/* n weights given; the last one is implied by the sum */
	uint32_t total = 0;
	for (unsigned s = 0; s < n; s++) {
		if (w[s] > ZS_HUF_BITS_MAX)
			return zfail(z, at, "Huffman weight %u above %u", w[s], ZS_HUF_BITS_MAX);
		if (w[s])
			total += 1u << (w[s] - 1);
	}
	if (total == 0 || n >= 256)
		return zfail(z, at, "Huffman weights are empty or too many");
	unsigned max_bits = highbit(total) + 1;
	if (max_bits > ZS_HUF_BITS_MAX)
		return zfail(z, at, "Huffman code longer than %u bits", ZS_HUF_BITS_MAX);
	uint32_t left = (1u << max_bits) - total;
	if (left & (left - 1))
		return zfail(z, at, "Huffman weights leave a remainder that is not a power of two");
	w[n] = (uint8_t)(highbit(left) + 1);
	n++;
	uint32_t start[ZS_HUF_BITS_MAX + 2] = { 0 }, pos = 0;
	for (unsigned wt = 1; wt <= max_bits; wt++) {
		start[wt] = pos;
		for (unsigned s = 0; s < n; s++)
			if (w[s] == wt)
				pos += 1u << (wt - 1);
	}
	if (pos != (1u << max_bits))
		return zfail(z, at, "Huffman table does not fill");
	for (unsigned s = 0; s < n; s++) {
		if (!w[s])
			continue;
		uint32_t len = 1u << (w[s] - 1);
		for (uint32_t i = 0; i < len; i++) {
			h->sym[start[w[s]] + i] = (uint8_t)s;
			h->bits[start[w[s]] + i] = (uint8_t)(max_bits + 1 - w[s]);
		}
		start[w[s]] += len;
	}
	h->max_bits = max_bits;
	h->ok = true;
	return true;
}

/* The tree description at src[*at..end); advances *at. */
static bool huf_read(zs *z, size_t *at, size_t end)
{
	if (*at >= end)
		return zfail(z, *at, "Huffman tree description missing");
	uint8_t hdr = z->src[*at];
	uint8_t w[256] = { 0 };
	unsigned n = 0;
	size_t start = *at;
	if (hdr >= 128) {
		n = hdr - 127u;
		size_t bytes = (n + 1) / 2;
		if (bytes > end - *at - 1)
			return zfail(z, *at, "Huffman weights run past the literals");
		for (unsigned i = 0; i < n; i++) {
			uint8_t b = z->src[*at + 1 + i / 2];
			w[i] = (i % 2) ? (b & 0xf) : (uint8_t)(b >> 4);
		}
		*at += 1 + bytes;
	} else {
		size_t csize = hdr;
		if (csize == 0 || csize > end - *at - 1)
			return zfail(z, *at, "Huffman weight stream of %zu bytes does not fit", csize);
		size_t p = *at + 1;
		zs_fse f;
		if (!fse_read(z, &f, &p, p + csize, 12, 6))
			return false;
		size_t used = p - (*at + 1);
		if (used >= csize)
			return zfail(z, *at, "Huffman weight stream has no bits after its table");
		zs_back b = { 0 };
		if (!back_init(z, &b, z->src + p, csize - used, p))
			return false;
		unsigned s1 = back_read(&b, f.al), s2 = back_read(&b, f.al);
		for (;;) {
			if (n >= 255)
				return zfail(z, start, "more than 255 Huffman weights");
			w[n++] = f.t[s1].sym;
			s1 = f.t[s1].base + back_read(&b, f.t[s1].bits);
			if (b.pos < 0) {
				w[n++] = f.t[s2].sym;
				break;
			}
			if (n >= 255)
				return zfail(z, start, "more than 255 Huffman weights");
			w[n++] = f.t[s2].sym;
			s2 = f.t[s2].base + back_read(&b, f.t[s2].bits);
			if (b.pos < 0) {
				if (n >= 255)
					return zfail(z, start, "more than 255 Huffman weights");
				w[n++] = f.t[s1].sym;
				break;
			}
		}
		*at += 1 + csize;
	}
	return huf_build(z, &z->huf, w, n, start);
}

static bool huf_stream(zs *z, const uint8_t *p, size_t n, size_t at, uint8_t *out, size_t count)
{
	zs_back b = { 0 };
	if (!back_init(z, &b, p, n, at))
		return false;
	const zs_huf *h = &z->huf;
	for (size_t i = 0; i < count; i++) {
		uint32_t v = back_peek(&b, h->max_bits);
		out[i] = h->sym[v];
		b.pos -= h->bits[v];
		if (b.pos < 0)
			return zfail(z, at, "Huffman stream ends before its %zu literals", count);
	}
	if (b.pos != 0)
		return zfail(z, at, "Huffman stream has %lld bits left over", (long long)b.pos);
	return true;
}

/* ---- blocks --------------------------------------------------------------------- */

static bool literals(zs *z, size_t *at, size_t end, size_t *nlit)
{
	size_t h = *at;
	if (h >= end)
		return zfail(z, h, "literals section missing");
	uint8_t b0 = z->src[h];
	unsigned type = b0 & 3, fmt = (b0 >> 2) & 3;
	if (type < 2) {
		size_t regen, hl;
		if (fmt == 0 || fmt == 2) {
			regen = b0 >> 3;
			hl = 1;
		} else if (fmt == 1) {
			if (end - h < 2)
				return zfail(z, h, "literals header truncated");
			regen = (b0 >> 4) + ((size_t)z->src[h + 1] << 4);
			hl = 2;
		} else {
			if (end - h < 3)
				return zfail(z, h, "literals header truncated");
			regen = (b0 >> 4) + ((size_t)z->src[h + 1] << 4) + ((size_t)z->src[h + 2] << 12);
			hl = 3;
		}
		if (regen > ZS_BLOCK_MAX)
			return zfail(z, h, "%zu literals exceed a block", regen);
		size_t need = type == 0 ? regen : 1;
		if (need > end - h - hl)
			return zfail(z, h, "literals run past the block");
		if (type == 0)
			memcpy(z->lit, z->src + h + hl, regen);
		else
			memset(z->lit, z->src[h + hl], regen);
		*at = h + hl + need;
		*nlit = regen;
		return true;
	}
	size_t hl = fmt < 2 ? 3 : fmt == 2 ? 4 : 5;
	if (end - h < hl)
		return zfail(z, h, "literals header truncated");
	uint64_t v = 0;
	for (size_t i = 0; i < hl; i++)
		v |= (uint64_t)z->src[h + i] << (8 * i);
	v >>= 4;
	unsigned sbits = fmt < 2 ? 10 : fmt == 2 ? 14 : 18;
	size_t regen = (size_t)(v & ((1u << sbits) - 1)), csize = (size_t)(v >> sbits);
	bool four = fmt != 0;
	if (regen > ZS_BLOCK_MAX)
		return zfail(z, h, "%zu literals exceed a block", regen);
	if (csize > end - h - hl)
		return zfail(z, h, "compressed literals (%zu bytes) run past the block", csize);
	size_t p = h + hl, lend = h + hl + csize;
	if (type == 2) {
		if (!huf_read(z, &p, lend))
			return false;
	} else if (!z->huf.ok) {
		return zfail(z, h, "treeless literals without an earlier Huffman table");
	}
	if (!four) {
		if (!huf_stream(z, z->src + p, lend - p, p, z->lit, regen))
			return false;
	} else {
		if (lend - p < 6)
			return zfail(z, p, "jump table truncated");
		size_t s1 = z->src[p] | (size_t)z->src[p + 1] << 8;
		size_t s2 = z->src[p + 2] | (size_t)z->src[p + 3] << 8;
		size_t s3 = z->src[p + 4] | (size_t)z->src[p + 5] << 8;
		size_t total = lend - p - 6;
		if (s1 + s2 + s3 > total)
			return zfail(z, p, "jump table streams exceed the literals");
		size_t s4 = total - s1 - s2 - s3;
		size_t per = (regen + 3) / 4;
		if (per * 3 > regen)
			return zfail(z, h, "%zu literals cannot fill four streams", regen);
		size_t sizes[4] = { s1, s2, s3, s4 };
		size_t q = p + 6, o = 0;
		for (int i = 0; i < 4; i++) {
			size_t cnt = i < 3 ? per : regen - 3 * per;
			if (!huf_stream(z, z->src + q, sizes[i], q, z->lit + o, cnt))
				return false;
			q += sizes[i];
			o += cnt;
		}
	}
	*at = lend;
	*nlit = regen;
	return true;
}

static const uint32_t ll_base[36] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	16, 18, 20, 22, 24, 28, 32, 40, 48, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384,
	32768, 65536 };
static const uint8_t ll_bits[36] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1,
	2, 2, 3, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
static const uint32_t ml_base[53] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18,
	19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 37, 39, 41, 43, 47,
	51, 59, 67, 83, 99, 131, 259, 515, 1027, 2051, 4099, 8195, 16387, 32771, 65539 };
static const uint8_t ml_bits[53] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 7, 8, 9, 10, 11,
	12, 13, 14, 15, 16 };
/* The predefined distributions (RFC 8878 3.1.1.3.2.2). */
static const int16_t ll_def[36] = { 4, 3, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 2, 2, 2,
	2, 2, 2, 2, 2, 3, 2, 1, 1, 1, 1, 1, -1, -1, -1, -1 };
static const int16_t ml_def[53] = { 1, 4, 3, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, -1, -1,
	-1, -1, -1, -1, -1 };
static const int16_t of_def[29] = { 1, 1, 1, 1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, -1, -1, -1, -1, -1 };

static bool table_mode(zs *z, zs_fse *f, unsigned mode, size_t *at, size_t end, unsigned max_sym,
		       unsigned max_al, const int16_t *def, unsigned ndef, unsigned def_al,
		       const char *what)
{
	switch (mode) {
	case 0:
		return fse_build(z, f, def, ndef, def_al, *at);
	case 1:
		if (*at >= end)
			return zfail(z, *at, "%s RLE symbol missing", what);
		if (z->src[*at] > max_sym)
			return zfail(z, *at, "%s RLE symbol %u above %u", what, z->src[*at], max_sym);
		fse_rle(f, z->src[(*at)++]);
		return true;
	case 2:
		return fse_read(z, f, at, end, max_sym, max_al);
	default:
		if (!f->ok)
			return zfail(z, *at, "%s repeat mode without an earlier table", what);
		return true;
	}
}

static bool out_bytes(zs *z, size_t at, size_t n)
{
	if (n > z->cap - z->pos)
		return zfail(z, at, "output exceeds the %zu bytes announced", z->cap);
	return true;
}

static bool sequences(zs *z, size_t at, size_t end, size_t nlit)
{
	size_t p = at;
	if (p >= end)
		return zfail(z, p, "sequences section missing");
	size_t nseq = z->src[p++];
	if (nseq >= 128) {
		if (p >= end)
			return zfail(z, p, "sequence count truncated");
		if (nseq < 255) {
			nseq = ((nseq - 128) << 8) + z->src[p++];
		} else {
			if (end - p < 2)
				return zfail(z, p, "sequence count truncated");
			nseq = z->src[p] + ((size_t)z->src[p + 1] << 8) + 0x7f00;
			p += 2;
		}
	}
	size_t lp = 0;
	if (nseq) {
		if (p >= end)
			return zfail(z, p, "symbol compression modes missing");
		uint8_t modes = z->src[p++];
		if (modes & 3)
			return zfail(z, p - 1, "reserved bits set in the compression modes");
		if (!table_mode(z, &z->ll, modes >> 6, &p, end, ZS_LL_MAX, ZS_LL_AL_MAX, ll_def, 36, 6,
				"literal lengths") ||
		    !table_mode(z, &z->of, (modes >> 4) & 3, &p, end, ZS_OF_MAX, ZS_OF_AL_MAX, of_def,
				29, 5, "offsets") ||
		    !table_mode(z, &z->ml, (modes >> 2) & 3, &p, end, ZS_ML_MAX, ZS_ML_AL_MAX, ml_def,
				53, 6, "match lengths"))
			return false;
		zs_back b = { 0 };
		if (!back_init(z, &b, z->src + p, end - p, p))
			return false;
		unsigned sll = back_read(&b, z->ll.al), sof = back_read(&b, z->of.al),
			 sml = back_read(&b, z->ml.al);
		for (size_t i = 0; i < nseq; i++) {
			unsigned llc = z->ll.t[sll].sym, ofc = z->of.t[sof].sym, mlc = z->ml.t[sml].sym;
			if (llc > ZS_LL_MAX || mlc > ZS_ML_MAX || ofc > ZS_OF_MAX)
				return zfail(z, p, "sequence %zu: code out of range", i);
			uint32_t ofv = (1u << ofc) + back_read(&b, ofc);
			uint32_t ml = ml_base[mlc] + back_read(&b, ml_bits[mlc]);
			uint32_t ll = ll_base[llc] + back_read(&b, ll_bits[llc]);
			if (i + 1 < nseq) {
				sll = z->ll.t[sll].base + back_read(&b, z->ll.t[sll].bits);
				sml = z->ml.t[sml].base + back_read(&b, z->ml.t[sml].bits);
				sof = z->of.t[sof].base + back_read(&b, z->of.t[sof].bits);
			}
			if (b.pos < 0)
				return zfail(z, p, "sequence %zu reads past its bitstream", i);
			uint32_t off;
			if (ofv > 3) {
				off = ofv - 3;
				z->rep[2] = z->rep[1];
				z->rep[1] = z->rep[0];
				z->rep[0] = off;
			} else {
				unsigned idx = ofv - 1 + (ll == 0 ? 1 : 0);
				if (idx == 0) {
					off = z->rep[0];
				} else {
					off = idx == 3 ? z->rep[0] - 1 : z->rep[idx];
					if (idx == 3 && off == 0)
						return zfail(z, p, "sequence %zu: repeat offset 0", i);
					if (idx != 1)
						z->rep[2] = z->rep[1];
					z->rep[1] = z->rep[0];
					z->rep[0] = off;
				}
			}
			if (ll > nlit - lp)
				return zfail(z, p, "sequence %zu wants %u literals, %zu left", i, ll,
					     nlit - lp);
			if (!out_bytes(z, p, (size_t)ll + ml))
				return false;
			memcpy(z->dst + z->pos, z->lit + lp, ll);
			z->pos += ll;
			lp += ll;
			if (off > z->pos)
				return zfail(z, p, "sequence %zu: offset %u before the start of output",
					     i, off);
			for (uint32_t k = 0; k < ml; k++, z->pos++)
				z->dst[z->pos] = z->dst[z->pos - off];
		}
		if (b.pos != 0)
			return zfail(z, p, "sequence bitstream has %lld bits left over",
				     (long long)b.pos);
	} else if (p != end) {
		return zfail(z, p, "%zu bytes after an empty sequences section", end - p);
	}
	/* the trailing literals: located at the sequences section that left them
	 * (end can be the end of the whole entry) */
	if (!out_bytes(z, at, nlit - lp))
		return false;
	memcpy(z->dst + z->pos, z->lit + lp, nlit - lp);
	z->pos += nlit - lp;
	return true;
}

/* ---- XXH64, for the content checksum ------------------------------------------ */

static const uint64_t P1 = 11400714785074694791ull, P2 = 14029467366897019727ull,
		      P3 = 1609587929392839161ull, P4 = 9650029242287828579ull,
		      P5 = 2870177450012600261ull;

static uint64_t rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
static uint64_t round64(uint64_t acc, uint64_t in)
{
	acc += in * P2;
	return rotl(acc, 31) * P1;
}
static uint64_t merge64(uint64_t acc, uint64_t v)
{
	acc ^= round64(0, v);
	return acc * P1 + P4;
}

static uint64_t xxh64(const uint8_t *p, size_t n)
{
	const uint8_t *end = p + n;
	uint64_t h;
	if (n >= 32) {
		uint64_t v1 = P1 + P2, v2 = P2, v3 = 0, v4 = 0 - P1;
		while (end - p >= 32) {
			v1 = round64(v1, cs_rd64(p));
			v2 = round64(v2, cs_rd64(p + 8));
			v3 = round64(v3, cs_rd64(p + 16));
			v4 = round64(v4, cs_rd64(p + 24));
			p += 32;
		}
		h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
		h = merge64(h, v1);
		h = merge64(h, v2);
		h = merge64(h, v3);
		h = merge64(h, v4);
	} else {
		h = P5;
	}
	h += n;
	while (end - p >= 8) {
		h ^= round64(0, cs_rd64(p));
		h = rotl(h, 27) * P1 + P4;
		p += 8;
	}
	if (end - p >= 4) {
		h ^= (uint64_t)cs_rd32(p) * P1;
		h = rotl(h, 23) * P2 + P3;
		p += 4;
	}
	while (p < end) {
		h ^= (*p++) * P5;
		h = rotl(h, 11) * P1;
	}
	h ^= h >> 33;
	h *= P2;
	h ^= h >> 29;
	h *= P3;
	h ^= h >> 32;
	return h;
}

/* ---- frames ----------------------------------------------------------------------- */

static bool frame(zs *z, size_t *at)
{
	size_t p = *at, fstart = p;
	if (z->len - p < 5)
		return zfail(z, p, "frame header truncated");
	uint8_t fhd = z->src[p + 4];
	p += 5;
	unsigned fcs_flag = fhd >> 6, single = (fhd >> 5) & 1, checksum = (fhd >> 2) & 1,
		 dict = fhd & 3;
	if (fhd & 0x08)
		return zfail(z, p - 1, "reserved bit set in the frame header");
	if (!single)
		p++; /* window descriptor: the whole output is in memory anyway */
	static const unsigned dict_bytes[4] = { 0, 1, 2, 4 };
	static const unsigned fcs_bytes[4] = { 0, 2, 4, 8 };
	size_t db = dict_bytes[dict], fb = fcs_flag == 0 && single ? 1 : fcs_bytes[fcs_flag];
	if (z->len < p || z->len - p < db + fb)
		return zfail(z, fstart, "frame header truncated");
	uint32_t dict_id = 0;
	for (size_t i = 0; i < db; i++)
		dict_id |= (uint32_t)z->src[p + i] << (8 * i);
	if (dict_id)
		return zfail(z, p, "frame needs dictionary %u; chainsim has none", dict_id);
	p += db;
	uint64_t fcs = 0;
	for (size_t i = 0; i < fb; i++)
		fcs |= (uint64_t)z->src[p + i] << (8 * i);
	if (fb == 2)
		fcs += 256;
	p += fb;
	size_t out_start = z->pos;
	z->rep[0] = 1;
	z->rep[1] = 4;
	z->rep[2] = 8;
	z->huf.ok = z->ll.ok = z->ml.ok = z->of.ok = false;
	for (;;) {
		if (z->len - p < 3)
			return zfail(z, p, "block header truncated");
		uint32_t bh = z->src[p] | (uint32_t)z->src[p + 1] << 8 | (uint32_t)z->src[p + 2] << 16;
		size_t bstart = p;
		p += 3;
		bool last = bh & 1;
		unsigned type = (bh >> 1) & 3;
		size_t bsize = bh >> 3;
		if (type == 3)
			return zfail(z, bstart, "reserved block type");
		if (bsize > ZS_BLOCK_MAX)
			return zfail(z, bstart, "block of %zu bytes exceeds 128 KiB", bsize);
		size_t stored = type == 1 ? 1 : bsize;
		if (stored > z->len - p)
			return zfail(z, bstart, "block of %zu bytes runs past the end", stored);
		if (type == 0) {
			if (!out_bytes(z, p, bsize))
				return false;
			memcpy(z->dst + z->pos, z->src + p, bsize);
			z->pos += bsize;
		} else if (type == 1) {
			if (!out_bytes(z, p, bsize))
				return false;
			memset(z->dst + z->pos, z->src[p], bsize);
			z->pos += bsize;
		} else {
			size_t q = p, nlit = 0;
			if (!literals(z, &q, p + bsize, &nlit) || !sequences(z, q, p + bsize, nlit))
				return false;
		}
		p += stored;
		if (last)
			break;
	}
	size_t produced = z->pos - out_start;
	if ((fb || single) && fcs != produced)
		return zfail(z, fstart, "frame says %llu bytes, decoded %zu",
			     (unsigned long long)fcs, produced);
	if (checksum) {
		if (z->len - p < 4)
			return zfail(z, p, "content checksum truncated");
		uint32_t want = cs_rd32(z->src + p);
		uint32_t got = (uint32_t)xxh64(z->dst + out_start, produced);
		if (want != got)
			return zfail(z, p, "content checksum 0x%08x, decoded data gives 0x%08x", want,
				     got);
		p += 4;
	}
	*at = p;
	return true;
}

bool cs_zstd_decompress(const uint8_t *src, size_t len, uint64_t base, const char *name,
			uint8_t *dst, size_t cap, size_t *out_len, cs_diag *d)
{
	zs *z = calloc(1, sizeof(*z));
	if (!z) {
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory");
		return false;
	}
	z->src = src;
	z->len = len;
	z->base = base;
	z->name = name;
	z->d = d;
	z->dst = dst;
	z->cap = cap;
	size_t p = 0;
	bool ok = true;
	unsigned frames = 0;
	while (ok && p < len) {
		if (len - p < 4) {
			/* padding after the last frame is zeros */
			while (p < len && src[p] == 0)
				p++;
			if (p < len)
				ok = zfail(z, p, "trailing bytes after the last frame");
			break;
		}
		uint32_t magic = cs_rd32(src + p);
		if ((magic & 0xfffffff0u) == 0x184d2a50u) { /* skippable frame */
			if (len - p < 8) {
				ok = zfail(z, p, "skippable frame header truncated");
				break;
			}
			uint32_t n = cs_rd32(src + p + 4);
			if (n > len - p - 8) {
				ok = zfail(z, p + 4, "skippable frame runs past the end");
				break;
			}
			p += 8 + (size_t)n;
			continue;
		}
		if (magic != ZS_MAGIC) {
			if (frames && magic == 0) {
				while (p < len && src[p] == 0)
					p++;
				if (p < len)
					ok = zfail(z, p, "trailing bytes after the last frame");
				break;
			}
			ok = zfail(z, p, "bad frame magic 0x%08x, expected 0x%08x", magic,
				   (unsigned)ZS_MAGIC);
			break;
		}
		ok = frame(z, &p);
		frames++;
	}
	*out_len = z->pos;
	free(z);
	return ok;
}
