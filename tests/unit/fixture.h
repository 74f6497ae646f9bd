/* fixture.h - helpers for unit tests that read captured tool output. */
#ifndef SYNCTOP_TEST_FIXTURE_H
#define SYNCTOP_TEST_FIXTURE_H

#include <stddef.h>

/* Read tests/fixtures/NAME (directory from $SYNCTOP_FIXTURES).  Returns a
 * malloc'd, NUL-terminated buffer and its length; a missing file fails the
 * test.  Caller frees. */
char *fixture_read(const char *name, size_t *len);

/* Like fixture_read, but a missing file yields "" (for optional .stderr.txt). */
char *fixture_read_optional(const char *name, size_t *len);

#endif
