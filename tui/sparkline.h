/* sparkline.h - a row of eight-level bars for the newest samples of a
 * series: "▁▂▃▄▅▆▇█", or " .:-=+*#" where the terminal is not UTF-8.
 *
 * Bars scale from the smallest to the largest finite value shown, so the
 * shape shows the trend and the spikes whatever the magnitude; a flat
 * series draws mid-height bars.  Unknown samples (NAN) are blanks. */
#ifndef SYNCTOP_SPARKLINE_H
#define SYNCTOP_SPARKLINE_H

#include <stdbool.h>
#include <stddef.h>

#include "history.h"

/* Bytes one bar may take (UTF-8 block elements are 3). */
#define SPARKLINE_BAR_BYTES 3

/* Renders the last `width` of values[0..n) (oldest first), right-aligned:
 * with fewer values the line starts with blanks.  out needs
 * width * SPARKLINE_BAR_BYTES + 1 bytes; a smaller buffer gets the bars
 * that fit.  Returns the bytes written (not counting the NUL). */
size_t sparkline_render(const double *values, size_t n, size_t width, bool utf8, char *out,
			size_t out_len);

/* The same over one series of a node's history.  When the series has no
 * finite value among those samples and `fallback` is a different series,
 * that one is drawn instead (a PTP-only node has no chrony offset). */
size_t sparkline_history(const history *h, history_series series, history_series fallback,
			 size_t width, bool utf8, char *out, size_t out_len);

#endif
