/* finding.c - filling in a finding: the shared helpers of the per-node
 * rules (health.c) and the cluster-wide ones (consistency.c). */
#include <config.h>

#include "finding.h"

#include <stdarg.h>
#include <stdio.h>

const char *severity_name(severity sev)
{
	switch (sev) {
	case SEVERITY_OK: return "ok";
	case SEVERITY_WARN: return "warn";
	case SEVERITY_CRIT: return "crit";
	}
	return "?";
}

void finding_start(finding *f, severity sev, const char *code)
{
	f->sev = sev;
	f->code = code;
	f->message[0] = '\0';
	f->hint[0] = '\0';
	f->since = 0;
	f->pending = false;
}

void finding_message(finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->message, sizeof f->message, fmt, ap);
	va_end(ap);
}

void finding_hint(finding *f, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->hint, sizeof f->hint, fmt, ap);
	va_end(ap);
}
