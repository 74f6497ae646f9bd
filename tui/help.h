/* help.h - the help overlay (`?`): every key, the mouse, and what the
 * columns and cell marks mean. */
#ifndef SYNCTOP_HELP_H
#define SYNCTOP_HELP_H

#include <stdbool.h>

#include "doc.h"
#include "tui_state.h"

/* The help text (pure; also what the tests check lists every key). */
void help_build(doc *d, bool utf8);

/* A box over the middle of the screen (lines x cols). */
void help_draw(tui *t, int lines, int cols);

/* Scroll keys scroll, any other key closes.  Always true. */
bool help_key(tui *t, int key);

#endif
