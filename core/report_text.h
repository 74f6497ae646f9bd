/* report_text.h - a plain-text table of the nodes, for `--once` and for the
 * live view when stdout is not a terminal (logs, pipes, `watch`). */
#ifndef SYNCTOP_REPORT_TEXT_H
#define SYNCTOP_REPORT_TEXT_H

#include <stddef.h>
#include <stdio.h>

#include "node.h"

/* One header line, one line per node (worst status first), one summary line.
 * Remote text is sanitised to printable ASCII. */
void report_text_write(FILE *f, const node *nodes, size_t n, double generated_at);

#endif
