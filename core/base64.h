/* base64.h - the base64 of known_hosts lines, key files and fingerprints. */
#ifndef SYNCTOP_BASE64_H
#define SYNCTOP_BASE64_H

#include <stdbool.h>
#include <stddef.h>

/* Strict: alphabet characters, then at most two '=' that complete the last
 * quantum (or none).  False on anything else or when out is too small. */
bool base64_decode(const char *s, size_t n, unsigned char *out, size_t cap, size_t *out_len);

/* Lenient, for PEM bodies: skips blanks and line breaks, stops at the first
 * other character (the '=' padding, the END line) or at cap output bytes.
 * Returns the bytes written. */
size_t base64_decode_lenient(const char *text, size_t len, unsigned char *out, size_t cap);

/* Encode with or without '=' padding.  Returns the length written (a NUL is
 * added), or 0 when it does not fit. */
size_t base64_encode(const unsigned char *in, size_t n, bool pad, char *out, size_t cap);

#endif
