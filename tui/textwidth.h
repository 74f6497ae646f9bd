/* textwidth.h - terminal columns of UTF-8 text: measure, cut to fit, wrap,
 * and clean a node's text for one line of the screen.
 *
 * Widths come from wcwidth(), so they follow LC_CTYPE (the TUI sets it from
 * the environment).  Malformed UTF-8 counts one column per byte; it never
 * reaches here from a node, because tw_clean() runs sanitize_text() first. */
#ifndef SYNCTOP_TEXTWIDTH_H
#define SYNCTOP_TEXTWIDTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Decodes one character from s[0..len) (len > 0).  Returns the bytes it
 * takes (>= 1); a malformed sequence yields U+FFFD for one byte. */
size_t tw_decode(const char *s, size_t len, uint32_t *cp);

/* Columns of one code point: 0 for combining marks, 2 for wide, 1 for
 * anything wcwidth() does not know. */
int tw_cp_width(uint32_t cp);

/* Columns of a NUL-terminated string. */
int tw_width(const char *s);

/* Copies the longest prefix of s that fits in cols columns to out (never
 * splitting a character), NUL-terminated.  When s does not fit, the last
 * column becomes "…" (utf8) or "~".  Returns the columns written. */
int tw_fit(const char *s, int cols, bool utf8, char *out, size_t out_len);

/* Bytes of s (starting at s) that make the next wrapped line of at most
 * cols columns: breaks after the last space that fits, or mid-word when a
 * word is longer than a line.  *next is where the following line starts
 * (spaces at the break are skipped).  Returns 0 at the end of s. */
size_t tw_wrap(const char *s, int cols, const char **next);

/* Remote text to one printable line: reads at most cap bytes of field
 * (which need not be NUL-terminated), drops escape sequences and controls,
 * and keeps it to ASCII when the terminal is not UTF-8. */
void tw_clean(const char *field, size_t cap, bool utf8, char *out, size_t out_len);

/* Our own strings may hold "µ" (units.h): on a non-UTF-8 terminal it
 * becomes "u".  In place. */
void tw_ascii_micro(char *s, bool utf8);

#endif
