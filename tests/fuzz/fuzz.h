/* fuzz.h - what every fuzz target shares: the libFuzzer entry points, the
 * way one fuzz input is cut into several untrusted buffers, and invariant
 * checks that abort (a crash to libFuzzer, a failure to the replay test).
 *
 * Input layout.  Targets that need several buffers (stdout and stderr, a
 * key blob and known_hosts files, ...) take them from the input split on
 * FUZZ_SEP.  Each part is copied into a heap block of exactly its length,
 * so a parser that reads one byte past a length it was given is caught by
 * AddressSanitizer instead of silently reading the next part. */
#ifndef SYNCTOP_FUZZ_H
#define SYNCTOP_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tool_output.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Separates the parts of one input: NUL bytes keep it out of ordinary text,
 * and the word makes seed files readable in a hex dump. */
#define FUZZ_SEP "\0--part--\0"
#define FUZZ_SEP_LEN (sizeof FUZZ_SEP - 1)

#define FUZZ_MAX_PARTS 8

typedef struct {
	char *p;   /* exactly len bytes, not NUL-terminated; never NULL */
	size_t len;
} fuzz_part;

typedef struct {
	int n;
	fuzz_part part[FUZZ_MAX_PARTS];
} fuzz_parts;

/* Split data on FUZZ_SEP into at most max parts (the last one keeps any
 * further separators).  Always at least one part.  fuzz_parts_free after. */
void fuzz_split(const uint8_t *data, size_t size, int max, fuzz_parts *out);
void fuzz_parts_free(fuzz_parts *parts);

/* The empty part (len 0) when i is past the last one. */
const fuzz_part *fuzz_part_at(const fuzz_parts *parts, int i);

/* A NUL-terminated heap copy of len bytes (NUL bytes inside stay).  Free it. */
char *fuzz_strndup(const char *p, size_t len);

/* Tool output inputs: byte 0 picks the exit status (fuzz_rc_of), the rest is
 * stdout FUZZ_SEP stderr.  parts owns the buffers out points into. */
void fuzz_tool_output(const uint8_t *data, size_t size, tool_output *out, fuzz_parts *parts);
int fuzz_rc_of(uint8_t b);

/* Abort with a message naming the invariant: libFuzzer keeps the input. */
void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));
#define FUZZ_CHECK(cond) \
	do { \
		if (!(cond)) { \
			fuzz_fail(__FILE__, __LINE__, #cond); \
		} \
	} while (0)

/* buf holds a NUL within cap bytes. */
bool fuzz_terminated(const char *buf, size_t cap);
/* buf is NUL-terminated within cap and every byte before the NUL is
 * printable ASCII (0x20..0x7e). */
bool fuzz_printable(const char *buf, size_t cap);
/* p[0, len) is well-formed UTF-8 (no overlongs, surrogates or code points
 * above U+10FFFF). */
bool fuzz_utf8_valid(const char *p, size_t len);
/* Valid UTF-8 holding no C0 control but '\n' and '\t', no DEL, no C1
 * control: what sanitize.h promises for text that reaches a person. */
bool fuzz_text_safe(const char *p, size_t len);

#endif
