/* draw.c - theme roles to curses attributes; clipped drawing. */
#include <config.h>

#include "draw.h"

#include <curses.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#include "textwidth.h"

/* Pairs 1..ROLE_COUNT: the roles; ROLE_COUNT+1..: each role over the
 * selected background. */
static int role_attr[ROLE_COUNT];
static int role_attr_selected[ROLE_COUNT];

static int curses_attrs(unsigned a)
{
	int r = A_NORMAL;
	r |= (a & THEME_ATTR_BOLD) ? A_BOLD : 0;
	r |= (a & THEME_ATTR_DIM) ? A_DIM : 0;
	r |= (a & THEME_ATTR_UNDERLINE) ? A_UNDERLINE : 0;
	r |= (a & THEME_ATTR_REVERSE) ? A_REVERSE : 0;
	r |= (a & THEME_ATTR_STANDOUT) ? A_STANDOUT : 0;
	r |= (a & THEME_ATTR_BLINK) ? A_BLINK : 0;
	r |= (a & THEME_ATTR_ITALIC) ? A_ITALIC : 0;
	return r;
}

/* Curses colour for a theme colour; bright-on-8-colours asks for bold. */
static short fit(theme_color c, bool default_ok, short fallback, bool *bright)
{
	theme_color f = theme_fit_color(c, COLORS, bright);
	if (f == THEME_COLOR_DEFAULT) {
		return default_ok ? -1 : fallback;
	}
	return (short)f;
}

void draw_use_theme(const theme *th, bool color)
{
	bool default_ok = color && use_default_colors() == OK;
	bool pairs_for_selected = color && COLOR_PAIRS > 2 * ROLE_COUNT;
	const theme_style *sel = &th->role[ROLE_SELECTED];

	for (int r = 0; r < ROLE_COUNT; r++) {
		const theme_style *st = &th->role[r];
		int attrs = curses_attrs(st->attrs);
		if (!color) {
			role_attr[r] = attrs;
			role_attr_selected[r] = curses_attrs(st->attrs | sel->attrs);
			continue;
		}
		bool bright = false, bright_bg = false, sel_bright = false;
		short fg = fit(st->fg, default_ok, COLOR_WHITE, &bright);
		short bg = fit(st->bg, default_ok, COLOR_BLACK, &bright_bg);
		init_pair((short)(r + 1), fg, bg);
		role_attr[r] = attrs | COLOR_PAIR(r + 1) | (bright ? A_BOLD : 0);

		if (!pairs_for_selected) {
			role_attr_selected[r] = role_attr[ROLE_SELECTED];
			continue;
		}
		/* The role's own foreground (the selected one when the role
		 * has none) over the selected background. */
		theme_color sfg = st->fg == THEME_COLOR_DEFAULT || r == ROLE_DEFAULT ? sel->fg : st->fg;
		short fg2 = fit(sfg, default_ok, COLOR_WHITE, &sel_bright);
		short bg2 = fit(sel->bg, default_ok, COLOR_BLACK, &bright_bg);
		init_pair((short)(ROLE_COUNT + r + 1), fg2, bg2);
		role_attr_selected[r] = curses_attrs(st->attrs | sel->attrs) |
					COLOR_PAIR(ROLE_COUNT + r + 1) | (sel_bright ? A_BOLD : 0);
	}
	/* Monochrome reverse video cancels out when a reversed role sits on
	 * the reversed selected row: keep it visible with bold instead. */
	for (int r = 0; r < ROLE_COUNT; r++) {
		if ((th->role[r].attrs & THEME_ATTR_REVERSE) && (sel->attrs & THEME_ATTR_REVERSE)) {
			role_attr_selected[r] = (role_attr_selected[r] & ~A_REVERSE) | A_BOLD;
			if (!color) {
				role_attr_selected[r] |= A_REVERSE;
			}
		}
	}
}

int draw_attr(theme_role role, bool on_selected)
{
	if ((int)role < 0 || role >= ROLE_COUNT) {
		role = ROLE_DEFAULT;
	}
	return on_selected ? role_attr_selected[role] : role_attr[role];
}

/* Text already fitted to the screen, at (y, x) in attr.  ncursesw takes a
 * narrow string through mbrtowc and iconv one byte at a time (43% of a
 * 1,000-row frame, bench/results/screen.md).  Most cells are ASCII: those
 * go in as chtypes, with nothing to decode; the others are decoded here
 * once and added as wide characters.  Neither path wraps or moves past the
 * right margin. */
static void put_text(int y, int x, int attr, const char *s)
{
	enum { MAX_CELLS = 1024 };
	size_t len = strlen(s);
	bool ascii = true;
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)s[i] >= 0x80) {
			ascii = false;
			break;
		}
	}
	if (ascii && len <= MAX_CELLS) {
		chtype cells[MAX_CELLS];
		for (size_t i = 0; i < len; i++) {
			cells[i] = (chtype)(unsigned char)s[i] | (chtype)attr;
		}
		mvaddchnstr(y, x, cells, (int)len);
		return;
	}
	attrset(attr);
	if (!ascii && sizeof(wchar_t) >= 4) {
		wchar_t wide[MAX_CELLS + 1];
		size_t n = 0;
		for (size_t i = 0; i < len && n < MAX_CELLS;) {
			uint32_t cp;
			i += tw_decode(s + i, len - i, &cp);
			wide[n++] = (wchar_t)cp;
		}
		wide[n] = L'\0';
		mvaddnwstr(y, x, wide, (int)n);
		return;
	}
	mvaddstr(y, x, s);
}

int draw_text(int y, int x, int cols, int attr, const char *s, bool utf8)
{
	char buf[2048];
	int w;
	if (cols <= 0) {
		return 0;
	}
	w = tw_fit(s, cols, utf8, buf, sizeof buf);
	put_text(y, x, attr, buf);
	return w;
}

void draw_fill(int y, int x, int cols, int attr)
{
	if (cols <= 0) {
		return;
	}
	attrset(attr);
	mvhline(y, x, ' ', cols);
}

void draw_cell(int y, int x, int cols, int attr, const char *s, bool right, bool utf8)
{
	char buf[2048];
	int w;
	if (cols <= 0) {
		return;
	}
	w = tw_fit(s, cols, utf8, buf, sizeof buf);
	attrset(attr); /* for the padding */
	if (right) {
		mvhline(y, x, ' ', cols - w);
		put_text(y, x + cols - w, attr, buf);
	} else {
		put_text(y, x, attr, buf);
		if (w < cols) {
			mvhline(y, x + w, ' ', cols - w);
		}
	}
}

void draw_doc_line(int y, int x, int cols, const doc_line *line, bool utf8)
{
	int used = 0;
	char piece[2048];
	for (size_t i = 0; i < line->n_runs && used < cols; i++) {
		const doc_run *run = &line->runs[i];
		size_t len = run->len < sizeof piece - 1 ? run->len : sizeof piece - 1;
		memcpy(piece, line->text + run->start, len);
		piece[len] = '\0';
		used += draw_text(y, x + used, cols - used, draw_attr(run->role, false), piece, utf8);
	}
	draw_fill(y, x + used, cols - used, draw_attr(ROLE_DEFAULT, false));
}
