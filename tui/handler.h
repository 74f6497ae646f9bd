/* handler.h - what a screen's key or mouse handler asks for (htop's
 * HandlerResult, acted on in its ScreenManager): the handler changes its
 * own state (a view, a scroll position) and returns flags; tui.c, which
 * owns the screen, acts on them.  Screens never write the owner's fields,
 * so no screen calls back into tui.c. */
#ifndef SYNCTOP_HANDLER_H
#define SYNCTOP_HANDLER_H

#include "theme.h"

typedef enum {
	HR_IGNORED = 0,           /* not this handler's key: try the next one */
	HR_HANDLED = 1u << 0,     /* the key was used */
	HR_REDRAW = 1u << 1,      /* something on screen changed */
	HR_QUIT = 1u << 2,        /* leave synctop (status 0) */
	HR_OPEN_DETAIL = 1u << 3, /* the drill-down on the selected node */
	HR_BACK = 1u << 4,        /* leave this screen or overlay */
	HR_EDIT_FILTER = 1u << 5, /* start editing the filter */
	HR_MESSAGE = 1u << 6,     /* show message in the footer */
	HR_SSH_DETAIL = 1u << 7,  /* `S`: poll the drill-down's node once over SSH */
} handler_flag;

#define HANDLER_MESSAGE_LEN 160

typedef struct {
	unsigned flags;           /* handler_flag bits */
	theme_role role;          /* of the message */
	char message[HANDLER_MESSAGE_LEN];
} handler_result;

/* Flags without a message. */
handler_result handler_flags(unsigned flags);

/* Flags plus a footer message (HR_MESSAGE is added). */
handler_result handler_message(unsigned flags, theme_role role, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
