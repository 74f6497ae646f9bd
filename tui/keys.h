/* keys.h - key codes as the screens' handlers receive them: characters are
 * their code point, curses key codes are shifted past Unicode so the two
 * never collide. */
#ifndef SYNCTOP_KEYS_H
#define SYNCTOP_KEYS_H

#define TK(code) (0x110000 + (code))
#define TK_CTRL(c) ((c) & 0x1f)
#define TK_ESC 27

#endif
