/* units.c - sign-and-unit formatting of seconds and nanoseconds. */
#include <config.h>

#include "units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct {
	double ns_per_unit;
	const char *name;
	int decimals;
} unit;

/* ns are whole numbers (no tool reports below 1 ns); larger units keep
 * three decimals, i.e. the next smaller unit's resolution. */
static const unit units[] = {
	{1.0, "ns", 0},
	{1e3, "µs", 3},
	{1e6, "ms", 3},
	{1e9, "s", 3},
};
#define N_UNITS (sizeof units / sizeof units[0])

/* Beyond ~31 years a fixed-point print would only fill the buffer. */
#define HUGE_NS 1e18

static double round_to(double v, int decimals)
{
	double scale = pow(10.0, decimals);
	return round(v * scale) / scale;
}

static char *format_ns(double ns, char *buf, size_t len)
{
	if (len == 0) {
		return buf;
	}
	if (isnan(ns)) {
		snprintf(buf, len, "unknown");
		return buf;
	}
	if (isinf(ns)) {
		snprintf(buf, len, "%cinf s", ns < 0 ? '-' : '+');
		return buf;
	}

	if (fabs(ns) >= HUGE_NS) {
		snprintf(buf, len, "%+.3e s", ns / 1e9);
		return buf;
	}

	/* Pick the unit after rounding, so 999.9996 µs reads "+1.000 ms" rather
	 * than "+1000.000 µs". */
	double mag = fabs(ns);
	size_t u = 0;
	double v = round_to(mag / units[0].ns_per_unit, units[0].decimals);
	while (v >= 1000.0 && u + 1 < N_UNITS) {
		u++;
		v = round_to(mag / units[u].ns_per_unit, units[u].decimals);
	}
	/* A value that rounds to zero has no meaningful sign. */
	char sign = (ns < 0 && v != 0.0) ? '-' : '+';
	snprintf(buf, len, "%c%.*f %s", sign, units[u].decimals, v, units[u].name);
	return buf;
}

char *units_format_seconds(double s, char *buf, size_t len)
{
	if (len > 0 && isfinite(s) && fabs(s) >= HUGE_NS / 1e9) {
		/* before s * 1e9 can overflow to infinity */
		snprintf(buf, len, "%+.3e s", s);
		return buf;
	}
	return format_ns(s * 1e9, buf, len);
}

char *units_format_ns(int64_t ns, char *buf, size_t len)
{
	if (ns == INT64_MIN) {
		return format_ns(NAN, buf, len);
	}
	return format_ns((double)ns, buf, len);
}

const char *units_unsigned(const char *formatted)
{
	return formatted[0] == '+' ? formatted + 1 : formatted;
}

static char *drop_plus(char *buf)
{
	if (buf[0] == '+') {
		memmove(buf, buf + 1, strlen(buf));
	}
	return buf;
}

char *units_magnitude_seconds(double s, char *buf, size_t len)
{
	return drop_plus(units_format_seconds(s, buf, len));
}

char *units_magnitude_ns(int64_t ns, char *buf, size_t len)
{
	return drop_plus(units_format_ns(ns, buf, len));
}
