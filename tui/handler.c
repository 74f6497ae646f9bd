/* handler.c - building handler results. */
#include <config.h>

#include "handler.h"

#include <stdarg.h>
#include <stdio.h>

handler_result handler_flags(unsigned flags)
{
	handler_result r = {flags, ROLE_MESSAGE, ""};
	return r;
}

handler_result handler_message(unsigned flags, theme_role role, const char *fmt, ...)
{
	handler_result r = {flags | HR_MESSAGE, role, ""};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r.message, sizeof r.message, fmt, ap);
	va_end(ap);
	return r;
}
