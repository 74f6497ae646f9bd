/* sanitize.h - make untrusted remote text safe for a terminal or for JSON.
 *
 * Anything a node sends us (tool output, error text, names) may carry escape
 * sequences that retitle, recolour or reprogram the operator's terminal, or
 * bytes that are not UTF-8 (which JSON cannot carry).  sanitize_text() copies
 * such text into a bounded buffer keeping only printable characters:
 *
 *   - C0 controls (U+0000..U+001F) are dropped, except '\n' and '\t', which
 *     are kept (or turned into a space with SANITIZE_SINGLE_LINE).  '\r' is
 *     always dropped, so CRLF line ends become LF.
 *   - DEL and C1 controls (U+0080..U+009F) are dropped.
 *   - Characters that reorder or hide text without showing anything are
 *     dropped in every mode: bidi controls (U+061C, U+200E, U+200F,
 *     U+202A..U+202E, U+2066..U+2069), zero-width and invisible format
 *     characters (U+00AD, U+180E, U+200B..U+200D, U+2060..U+206F, U+FEFF,
 *     U+FFF9..U+FFFB) and tag characters (U+E0000..U+E007F).
 *   - U+2028 and U+2029 (line and paragraph separators) become '\n' (a
 *     space with SANITIZE_SINGLE_LINE).
 *   - Whole escape sequences are dropped, not just their ESC:
 *       ESC [ params intermediates final      (CSI; also U+009B)
 *       ESC ] ... BEL or ST                   (OSC; also U+009D)
 *       ESC P / X / ^ / _ ... ST              (DCS, SOS, PM, APC; also U+0090,
 *                                              U+0098, U+009E, U+009F)
 *       ESC intermediates(0x20..0x2F)* final  (e.g. ESC ( B)
 *       ESC + any other printable byte
 *     ST is ESC \ or U+009C; BEL, CAN, SUB or a new ESC also end a string.
 *     An unterminated sequence swallows the rest of the input, as it would
 *     in a terminal.
 *   - Invalid UTF-8 (stray continuation bytes, overlong forms, surrogates,
 *     code points above U+10FFFF, truncated sequences) becomes U+FFFD, one
 *     per maximal ill-formed subpart (the Unicode recommendation).
 *   - SANITIZE_ASCII: every non-ASCII character, valid or not, becomes '?',
 *     so the output is pure printable ASCII.
 *   - SANITIZE_LINE_MAX(n): lines longer than n characters (code points, not
 *     terminal columns; tab counts 1) are cut to n characters, the last one
 *     (three with SANITIZE_ASCII) replaced by "…" ("...").
 *
 * The output is always NUL-terminated (when out_len > 0), never split inside
 * a UTF-8 sequence, and never longer than out_len - 1 bytes; when it does not
 * fit, its tail is replaced by "…" ("...").  Each input byte yields at most
 * 3 output bytes, so out_len = 3 * in_len + 1 never truncates.
 */
#ifndef SYNCTOP_SANITIZE_H
#define SYNCTOP_SANITIZE_H

#include <stddef.h>

enum {
	/* '\n' and '\t' become a space: for one-line cells and log lines */
	SANITIZE_SINGLE_LINE = 1u << 0,
	/* non-ASCII becomes '?', the ellipsis is "..." */
	SANITIZE_ASCII = 1u << 1,
};

/* Line length cap, OR-ed into the flags; 0 (the default) means no cap.
 * Up to SANITIZE_LINE_MAX_LIMIT characters. */
#define SANITIZE_LINE_SHIFT 8
#define SANITIZE_LINE_MAX_LIMIT 0xFFFFFFu
#define SANITIZE_LINE_MAX(n) (((unsigned)(n) & SANITIZE_LINE_MAX_LIMIT) << SANITIZE_LINE_SHIFT)

/* Copy in[0..in_len) to out, sanitised.  in may hold any bytes, including
 * NUL.  Returns the number of bytes written, not counting the NUL. */
size_t sanitize_text(const char *in, size_t in_len, char *out, size_t out_len, unsigned flags);

/* Error messages quoting the operator's own input (config, theme, hosts and
 * ssh config files, command-line arguments) must show what is wrong rather
 * than drop it, so the operator can find it:
 *
 * sanitize_show() copies in[0..in_len) keeping printable ASCII (space
 * included) and valid UTF-8 characters that sanitize_text() would keep as
 * they are; every other byte (controls, DEL, the bytes of C1 controls, of
 * the hidden characters above, of the line separators, invalid UTF-8) is
 * shown as \xNN.  A backslash stays as it is.  The output is NUL-terminated
 * (when out_len > 0), never split inside a character or a \xNN, and ends
 * with "..." when it does not fit.  Each input byte yields at most 4 output
 * bytes, so out_len = 4 * in_len + 1 never truncates.  Returns the bytes
 * written, not counting the NUL. */
size_t sanitize_show(const char *in, size_t in_len, char *out, size_t out_len);

/* One byte of such input: 'c' (quoted) for printable ASCII other than the
 * space, \xNN for anything else.  Returns buf. */
#define SANITIZE_SHOW_CHAR_LEN 8
const char *sanitize_show_char(unsigned char c, char buf[SANITIZE_SHOW_CHAR_LEN]);

#endif
