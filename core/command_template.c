/* command_template.c - split a command template into words and fill in a
 * node's name (command_template.h). */
#include <config.h>

#include "command_template.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytebuf.h"
#include "xalloc.h"

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static void add_word(command_template *t, bytebuf *w)
{
	t->words = xrealloc(t->words, (t->n + 2) * sizeof *t->words);
	t->words[t->n] = xmalloc(w->len + 1);
	if (w->len) {
		memcpy(t->words[t->n], w->data, w->len);
	}
	t->words[t->n][w->len] = '\0';
	t->words[++t->n] = NULL;
	bytebuf_clear(w);
}

int command_template_split(const char *text, command_template *out, char *err, size_t err_len)
{
	bytebuf w;
	bool in_word = false;
	size_t i = 0;

	memset(out, 0, sizeof *out);
	memset(&w, 0, sizeof w);
	while (text[i]) {
		char c = text[i];
		if (is_space(c)) {
			if (in_word) {
				if (out->n == COMMAND_TEMPLATE_MAX_WORDS) {
					snprintf(err, err_len, "more than %d words", COMMAND_TEMPLATE_MAX_WORDS);
					goto fail;
				}
				add_word(out, &w);
				in_word = false;
			}
			i++;
			continue;
		}
		in_word = true;
		if (c == '\'' || c == '"') {
			size_t start = i++;
			while (text[i] && text[i] != c) {
				/* in double quotes a backslash escapes " and \ only */
				if (c == '"' && text[i] == '\\' && (text[i + 1] == '"' || text[i + 1] == '\\')) {
					i++;
				}
				bytebuf_append(&w, &text[i], 1);
				i++;
			}
			if (!text[i]) {
				snprintf(err, err_len, "unbalanced %c quote starting at column %zu", c, start + 1);
				goto fail;
			}
			i++; /* the closing quote */
			continue;
		}
		bytebuf_append(&w, &c, 1);
		i++;
	}
	if (in_word) {
		if (out->n == COMMAND_TEMPLATE_MAX_WORDS) {
			snprintf(err, err_len, "more than %d words", COMMAND_TEMPLATE_MAX_WORDS);
			goto fail;
		}
		add_word(out, &w);
	}
	bytebuf_free(&w);
	if (out->n == 0) {
		snprintf(err, err_len, "empty command");
		command_template_free(out);
		return -1;
	}
	if (out->words[0][0] == '\0') {
		snprintf(err, err_len, "the command name is empty");
		command_template_free(out);
		return -1;
	}
	return 0;

fail:
	bytebuf_free(&w);
	command_template_free(out);
	return -1;
}

void command_template_free(command_template *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->words[i]);
	}
	free(t->words);
	memset(t, 0, sizeof *t);
}

size_t command_template_host_count(const command_template *t)
{
	size_t count = 0;
	for (size_t i = 0; i < t->n; i++) {
		for (const char *p = t->words[i]; (p = strstr(p, COMMAND_TEMPLATE_HOST)); p += strlen(COMMAND_TEMPLATE_HOST)) {
			count++;
		}
	}
	return count;
}

/* One word with every {host} replaced; the name's characters are copied as
 * they are, so nothing in it is looked at again. */
static char *expand_word(const char *word, const char *host)
{
	bytebuf b;
	const size_t mark = strlen(COMMAND_TEMPLATE_HOST);
	memset(&b, 0, sizeof b);
	for (const char *p = word; *p;) {
		const char *at = strstr(p, COMMAND_TEMPLATE_HOST);
		if (!at) {
			bytebuf_append(&b, p, strlen(p));
			break;
		}
		if (at > p) {
			bytebuf_append(&b, p, (size_t)(at - p));
		}
		if (host[0]) {
			bytebuf_append(&b, host, strlen(host));
		}
		p = at + mark;
	}
	char *s = xmalloc(b.len + 1);
	if (b.len) {
		memcpy(s, b.data, b.len);
	}
	s[b.len] = '\0';
	bytebuf_free(&b);
	return s;
}

char **command_template_argv(const command_template *t, const char *host)
{
	char **argv = xcalloc(t->n + 1, sizeof *argv);
	for (size_t i = 0; i < t->n; i++) {
		argv[i] = expand_word(t->words[i], host);
	}
	return argv;
}

void command_template_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++) {
		free(argv[i]);
	}
	free(argv);
}
