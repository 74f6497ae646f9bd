/* plot.h - a time series as a small character-cell chart with a y axis
 * labelled in the series' unit and an x axis in time before now:
 *
 *      +1.20 µs ┤    •
 *               │ •• ••      •
 *             0 ┤······•··•·•·····
 *      -0.80 µs ┤        •
 *               └┬────────────┬──┬
 *               -10m         -2m now
 *
 * Each column covers an equal slice of time and is filled from the lowest
 * to the highest value that fell in it, extended to meet the previous
 * column so the trace stays connected.  Pure: the result is a grid of
 * cells the TUI draws (or a test prints). */
#ifndef SYNCTOP_PLOT_H
#define SYNCTOP_PLOT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
	PLOT_BLANK = 0,
	PLOT_AXIS,  /* labels, axes, the zero line */
	PLOT_LINE,  /* data */
} plot_kind;

typedef struct {
	char glyph[5]; /* one character, UTF-8, NUL-terminated */
	plot_kind kind;
} plot_cell;

typedef struct {
	int width, height;
	plot_cell *cells; /* height rows of width cells */
} plot_grid;

typedef struct {
	const double *t;   /* sample times, ascending */
	const double *v;   /* values, NAN = unknown */
	size_t n;
	double now;        /* right edge of the x axis */
	/* Formats one y value with its unit ("+1.20 µs", "-3.512 ppm"). */
	void (*format_y)(double v, char *buf, size_t len);
	/* Left edge of the x axis; 0 = the first finite sample's time (the
	 * day view shows its whole range, however little it holds). */
	double since;
} plot_series;

/* Renders into a new grid of width x height (height >= 4: at least two data
 * rows, the axis and its labels; width >= 20).  Returns -1, with no grid,
 * when the size is too small or no value is finite.  Free with
 * plot_free(). */
int plot_render(const plot_series *s, int width, int height, bool utf8, plot_grid *out);
void plot_free(plot_grid *g);

/* One row as text (for tests and logs): into out, NUL-terminated. */
void plot_row_text(const plot_grid *g, int row, char *out, size_t out_len);

/* "-10m", "-45s", "-2h", "now": how long before now t was. */
void plot_format_ago(double seconds, char *out, size_t len);

#endif
