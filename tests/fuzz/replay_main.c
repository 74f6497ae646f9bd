/* replay_main.c - run a fuzz target's LLVMFuzzerTestOneInput once on each
 * file given (directories: every regular file in them, in name order), so
 * `make check` replays the corpora and the saved crashes without clang or
 * libFuzzer.  Built with the project's sanitizer flags, a regression shows
 * up as an ASan/UBSan report or a failed invariant (abort), either of which
 * ends this program with a non-zero status; it names the file first.
 *
 * Usage: replay_NAME PATH...   Prints "replayed N inputs" on success. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* A hostile input can be large, but the corpora hold small files: refuse
 * anything over this rather than guess at a partial read. */
#define REPLAY_MAX (16u * 1024u * 1024u)

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size_t cap = 4096, len = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (buf == NULL) {
			fprintf(stderr, "replay: %s: out of memory\n", path);
			fclose(f);
			return -1;
		}
		len += fread(buf + len, 1, cap - len, f);
		if (len < cap) {
			break;
		}
		if (cap >= REPLAY_MAX) {
			fprintf(stderr, "replay: %s: larger than %u bytes\n", path, REPLAY_MAX);
			free(buf);
			fclose(f);
			return -1;
		}
		uint8_t *bigger = realloc(buf, cap * 2);
		if (bigger == NULL) {
			free(buf);
		}
		buf = bigger;
		cap *= 2;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		return -1;
	}
	/* an exact-size copy, as libFuzzer passes it, so overreads are seen */
	uint8_t *exact = malloc(len ? len : 1);
	if (exact == NULL) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	fprintf(stderr, "replay: %s\n", path);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_dir(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	if (d == NULL) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.') {
			continue; /* ., .. and README-style dot files */
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			char **bigger = realloc(names, cap * sizeof *names);
			if (bigger == NULL) {
				rc = -1;
				break;
			}
			names = bigger;
		}
		size_t len = strlen(dir) + strlen(e->d_name) + 2;
		names[n] = malloc(len);
		if (names[n] == NULL) {
			rc = -1;
			break;
		}
		snprintf(names[n], len, "%s/%s", dir, e->d_name);
		n++;
	}
	closedir(d);
	if (n > 0) {
		qsort(names, n, sizeof *names, by_name);
	}
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		if (rc == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode)) {
			if (replay_file(names[i]) != 0) {
				rc = -1;
			} else {
				(*count)++;
			}
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			/* a target without saved crashes has no regressions dir */
			if (errno == ENOENT) {
				continue;
			}
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		if (S_ISDIR(st.st_mode)) {
			if (replay_dir(argv[i], &count) != 0) {
				return 1;
			}
		} else if (replay_file(argv[i]) != 0) {
			return 1;
		} else {
			count++;
		}
	}
	printf("replayed %zu inputs\n", count);
	return 0;
}
