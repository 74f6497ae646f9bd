/* fixture.h - helpers for unit tests that read captured tool output. */
#ifndef SYNCTOP_TEST_FIXTURE_H
#define SYNCTOP_TEST_FIXTURE_H

#include <stddef.h>

#include "tool_output.h"

/* Read tests/fixtures/NAME (directory from $SYNCTOP_FIXTURES).  Returns a
 * malloc'd, NUL-terminated buffer and its length; a missing file fails the
 * test.  Caller frees. */
char *fixture_read(const char *name, size_t *len);

/* Like fixture_read, but a missing file yields "" (for optional .stderr.txt). */
char *fixture_read_optional(const char *name, size_t *len);

/* NAME's captured stderr: the fixture NAME with ".txt" replaced by
 * ".stderr.txt", "" when there is none.  Caller frees. */
char *fixture_read_stderr(const char *name, size_t *len);

/* tests/fixtures/NAME as a tool's answer: its stdout, its stderr
 * (fixture_read_stderr) and the exit status rc.  fixture_output_free. */
tool_output fixture_output(const char *name, int rc);
void fixture_output_free(tool_output *t);

#endif
