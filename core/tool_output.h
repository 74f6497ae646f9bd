/* tool_output.h - one remote command's result, as the parsers receive it.
 *
 * The buffers are not NUL-terminated and may hold any bytes (remote text is
 * untrusted).  rc is the command's exit status, or -1 when it is not known. */
#ifndef SYNCTOP_TOOL_OUTPUT_H
#define SYNCTOP_TOOL_OUTPUT_H

#include <stddef.h>

typedef struct {
	const char *out; /* stdout */
	size_t out_len;
	const char *err; /* stderr, kept apart from stdout */
	size_t err_len;
	int rc;
} tool_output;

#define TOOL_RC_NOT_FOUND 127

#endif
