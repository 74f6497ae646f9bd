/* log.c - timestamped debug log to a file. */
#include <config.h>

#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

static FILE *log_file;

int log_open(const char *path)
{
	FILE *f = fopen(path, "ae");
	if (!f) {
		return -1;
	}
	setvbuf(f, NULL, _IOLBF, 0); /* a crash keeps every line written so far */
	log_file = f;
	return 0;
}

void log_close(void)
{
	if (log_file) {
		fclose(log_file);
		log_file = NULL;
	}
}

bool log_enabled(void)
{
	return log_file != NULL;
}

void log_printf(const char *fmt, ...)
{
	if (!log_file) {
		return;
	}
	struct timespec ts;
	struct tm tm;
	char when[32];
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	fprintf(log_file, "%s.%06ldZ ", when, ts.tv_nsec / 1000);
	va_list ap;
	va_start(ap, fmt);
	vfprintf(log_file, fmt, ap);
	va_end(ap);
	fputc('\n', log_file);
}
