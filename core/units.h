/* units.h - one place that turns raw time quantities into human units.
 *
 * Offsets are shown with an explicit sign (node minus reference) and the
 * largest unit that keeps the number below 1000: "-850 ns", "+12.345 µs",
 * "+1.234 ms", "+2.000 s".  Unknown values print as "unknown". */
#ifndef SYNCTOP_UNITS_H
#define SYNCTOP_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Enough for any value these functions print short of absurd magnitudes
 * (longer results are truncated, never overflowed). */
#define UNITS_BUF_LEN 32

/* Seconds (chrony's unit).  NAN prints "unknown", infinities "+inf s" /
 * "-inf s".  Always NUL-terminates when len > 0; returns buf. */
char *units_format_seconds(double s, char *buf, size_t len);

/* Nanoseconds (PTP's unit).  INT64_MIN, the model's "unknown" sentinel
 * (PTP_NS_UNKNOWN), prints "unknown".  Returns buf. */
char *units_format_ns(int64_t ns, char *buf, size_t len);

/* units_format_seconds / units_format_ns without the "+": for magnitudes
 * and limits, where the sign means nothing. */
char *units_magnitude_seconds(double s, char *buf, size_t len);
char *units_magnitude_ns(int64_t ns, char *buf, size_t len);

/* formatted without its leading "+", if any: a magnitude read from a
 * value formatted with its sign.  Returns a pointer into formatted. */
const char *units_unsigned(const char *formatted);

#endif
