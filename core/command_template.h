/* command_template.h - a command line written once by the operator
 * (--transport-cmd 'docker exec -i {host} sh') and run once per node.
 *
 * The template is split into words once, at start-up: whitespace separates
 * words; 'single' and "double" quotes keep whitespace inside a word (a
 * backslash inside double quotes escapes only " and \); nothing else is
 * special: no variables, globs, redirections, ; or |.  {host} is replaced by
 * the node's name inside the word it stands in, and the result is never split
 * again, so a name with spaces, quotes or ; stays one argument.  The words go
 * to execvp, never to a shell.  Pure: no I/O. */
#ifndef SYNCTOP_COMMAND_TEMPLATE_H
#define SYNCTOP_COMMAND_TEMPLATE_H

#include <stddef.h>

#define COMMAND_TEMPLATE_MAX_WORDS 64
#define COMMAND_TEMPLATE_HOST "{host}"

typedef struct {
	char **words; /* n words, NULL-terminated */
	size_t n;
} command_template;

/* Split text into words.  Returns 0, or -1 with err saying what is wrong
 * ("unbalanced ' quote starting at column 12", "empty command", ...);
 * out is then empty.  Free with command_template_free(). */
int command_template_split(const char *text, command_template *out, char *err, size_t err_len);
void command_template_free(command_template *t);

/* How many times {host} occurs in the words. */
size_t command_template_host_count(const command_template *t);

/* A NULL-terminated argv for one node: every {host} replaced by host.
 * Free with command_template_argv_free(). */
char **command_template_argv(const command_template *t, const char *host);
void command_template_argv_free(char **argv);

#endif
