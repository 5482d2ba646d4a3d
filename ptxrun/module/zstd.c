/* SPDX-License-Identifier: MIT */
/* The Zstandard entries nvcc 13 compresses inside fatbins, through libzstd's
 * streaming decoder: it writes into the caller's buffer and stops at its end,
 * so a frame that would inflate past the cap is refused without the bytes
 * past it ever being produced. A malformed frame is an error naming a byte
 * offset in the file (the caller passes where the frames start). */
#include <zstd.h>
#include <zstd_errors.h>

#include "module_internal.h"

/* The window a frame may ask for: the largest entry fatbin.c lets inflate
 * (64 MiB), so a hostile header cannot make libzstd allocate more. */
enum { ZS_WINDOW_LOG_MAX = 26 };

static bool zs_fail(cs_diag *d, const char *name, uint64_t at, const char *what)
{
	cs_diag_at_offset(d, CS_ERR_INPUT, name, at, "zstd: %s", what);
	return false;
}

/* Where libzstd's error is best located: the frame's magic, its header
 * descriptor, the checksum just read, or how far the input was taken. */
static bool zs_refuse(cs_diag *d, const char *name, const uint8_t *src, size_t len,
		      uint64_t base, size_t frame, size_t pos, size_t rc)
{
	size_t frame_len = ZSTD_findFrameCompressedSize(src + frame, len - frame);
	switch (ZSTD_getErrorCode(rc)) {
	case ZSTD_error_prefix_unknown:
		return zs_fail(d, name, base + frame, "bad frame magic: not a zstd frame");
	case ZSTD_error_frameParameter_unsupported:
		return zs_fail(d, name, base + frame + 4,
			       "frame header: a reserved bit is set or a parameter is unsupported");
	case ZSTD_error_frameParameter_windowTooLarge:
		return zs_fail(d, name, base + frame + 4,
			       "frame header: the window is larger than 64 MiB");
	case ZSTD_error_dictionary_wrong:
		return zs_fail(d, name, base + frame + 4, "the frame needs a dictionary");
	case ZSTD_error_checksum_wrong:
		/* the checksum is the frame's last 4 bytes */
		return zs_fail(d, name, base + (ZSTD_isError(frame_len) || frame_len < 4
						? pos : frame + frame_len - 4),
			       "content checksum (XXH64) does not match the content");
	default:
		cs_diag_at_offset(d, CS_ERR_INPUT, name, base + pos, "zstd: %s",
				  ZSTD_getErrorName(rc));
		return false;
	}
}

bool cs_zstd_decompress(const uint8_t *src, size_t len, uint64_t base, const char *name,
			uint8_t *dst, size_t cap, size_t *out_len, cs_diag *d)
{
	*out_len = 0;
	ZSTD_DCtx *dc = ZSTD_createDCtx();
	if (!dc || ZSTD_isError(ZSTD_DCtx_setParameter(dc, ZSTD_d_windowLogMax,
							ZS_WINDOW_LOG_MAX))) {
		ZSTD_freeDCtx(dc);
		cs_diag_set(d, CS_ERR_NOMEM, "out of memory for the zstd decoder");
		return false;
	}
	ZSTD_inBuffer in = { src, len, 0 };
	ZSTD_outBuffer out = { dst, cap, 0 };
	/* once dst is full, a one-byte probe: any byte there is past the cap */
	uint8_t extra;
	ZSTD_outBuffer probe = { &extra, 1, 0 };
	size_t frame = 0; /* where the frame being decoded starts */
	bool ok = true;
	for (;;) {
		ZSTD_outBuffer *o = out.pos < out.size ? &out : &probe;
		size_t in_was = in.pos, out_was = o->pos;
		size_t rc = ZSTD_decompressStream(dc, o, &in);
		if (ZSTD_isError(rc)) {
			ok = zs_refuse(d, name, src, len, base, frame, in.pos, rc);
			break;
		}
		if (probe.pos) {
			ok = zs_fail(d, name, base + in.pos, "the content exceeds the output capacity "
				     "(the decompressed size the entry declared)");
			break;
		}
		if (rc == 0) { /* a frame ended; another may follow */
			frame = in.pos;
			if (in.pos == in.size)
				break;
		} else if (in.pos == in_was && o->pos == out_was) {
			ok = in.pos == in.size
				     ? zs_fail(d, name, base + frame, "the frame is truncated: the "
					       "input ends inside it")
				     : zs_fail(d, name, base + in.pos, "the decoder made no progress");
			break;
		}
	}
	ZSTD_freeDCtx(dc);
	if (ok)
		*out_len = out.pos;
	return ok;
}
