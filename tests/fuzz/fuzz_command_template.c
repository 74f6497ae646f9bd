/* fuzz_command_template.c - command_template_split on a fuzzed template.
 *
 * Input: the template, any bytes (read up to the first NUL, as a command
 * line argument or a JSON string would be).  Beyond not crashing, the
 * promises of command_template.h:
 *   - a refusal leaves no words and says why in a printable message;
 *   - an accepted template has 1..COMMAND_TEMPLATE_MAX_WORDS words, NULL
 *     after the last, the first non-empty;
 *   - quoting every word back (single quotes, ' as '"'"') and splitting
 *     again gives the same words: nothing but quotes and whitespace is
 *     special;
 *   - filling in a host name keeps the number of words, whatever the name
 *     holds, and a word without {host} is copied unchanged. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bytebuf.h"
#include "command_template.h"
#include "fuzz.h"

static void quote_word(bytebuf *b, const char *w)
{
	bytebuf_append(b, "'", 1);
	for (const char *p = w; *p; p++) {
		if (*p == '\'') {
			bytebuf_append(b, "'\"'\"'", 5);
		} else {
			bytebuf_append(b, p, 1);
		}
	}
	bytebuf_append(b, "' ", 2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup((const char *)data, size);
	command_template t;
	char err[160];

	memset(err, 0, sizeof err);
	int rc = command_template_split(text, &t, err, sizeof err);
	FUZZ_CHECK(rc == 0 || rc == -1);
	if (rc != 0) {
		FUZZ_CHECK(t.n == 0 && t.words == NULL);
		FUZZ_CHECK(err[0] != '\0' && fuzz_printable(err, sizeof err));
		free(text);
		return 0;
	}
	FUZZ_CHECK(t.n >= 1 && t.n <= COMMAND_TEMPLATE_MAX_WORDS);
	FUZZ_CHECK(t.words[t.n] == NULL && t.words[0][0] != '\0');

	/* the words, quoted back, split into themselves */
	bytebuf b = {0};
	for (size_t i = 0; i < t.n; i++) {
		quote_word(&b, t.words[i]);
	}
	bytebuf_append(&b, "", 1);
	command_template again;
	FUZZ_CHECK(command_template_split(b.data, &again, err, sizeof err) == 0);
	FUZZ_CHECK(again.n == t.n);
	for (size_t i = 0; i < t.n; i++) {
		FUZZ_CHECK(strcmp(again.words[i], t.words[i]) == 0);
	}
	command_template_free(&again);
	bytebuf_free(&b);

	/* a hostile name stays inside its words */
	char **argv = command_template_argv(&t, "a b;'\"$(x)`y`\n{host}");
	size_t n = 0;
	while (argv[n]) {
		if (!strstr(t.words[n], COMMAND_TEMPLATE_HOST)) {
			FUZZ_CHECK(strcmp(argv[n], t.words[n]) == 0);
		}
		n++;
	}
	FUZZ_CHECK(n == t.n);
	command_template_argv_free(argv);
	command_template_free(&t);
	free(text);
	return 0;
}
