/* test_state_store.c - the --state-dir database and its writer thread:
 * schema creation and migration, downsampling and retention at injected
 * times, the size bound, and every way the file can be unusable (corrupt,
 * newer, read-only, held by another synctop, locked by another process,
 * full), each of which must be one clear sentence and never a crash. */
#define _GNU_SOURCE
#include <config.h>

#include <ev.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "node.h"
#include "state_run.h"
#include "state_store.h"
#include "state_writer.h"

#define NOW 1800000000.0 /* minute-aligned */

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/synctop-state-test.XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof cmd, "chmod -R u+w %s 2>/dev/null; rm -rf %s", dir, dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

static state_store *open_ok(const state_limits *lim)
{
	char err[STATE_ERROR_LEN] = "";
	state_store *s = state_store_open(dir, lim, err, sizeof err);
	if (!s) {
		fail_msg("open: %s", err);
	}
	return s;
}

/* One integer from the database file through a connection of our own. */
static long long db_int(const char *sql)
{
	char path[400];
	sqlite3 *db;
	sqlite3_stmt *st;
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	long long v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : -1;
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

static void db_exec(const char *sql)
{
	char path[400];
	sqlite3 *db;
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fail_msg("%s: %s", sql, msg);
	}
	sqlite3_close(db);
}

static state_sample sample_at(double t, float offset, float freq)
{
	state_sample x = {.t = t, .clock_check_s = NAN};
	for (int k = 0; k < HISTORY_SERIES_COUNT; k++) {
		x.value[k] = NAN;
	}
	x.value[HISTORY_OFFSET_S] = offset;
	x.value[HISTORY_FREQUENCY_PPM] = freq;
	return x;
}

typedef struct {
	size_t n;
	double first_t, last_t;
	double sum_offset;
} collected;

static void collect(void *ctx, const state_sample *x)
{
	collected *c = ctx;
	if (c->n == 0) {
		c->first_t = x->t;
	}
	c->last_t = x->t;
	c->sum_offset += isfinite(x->value[HISTORY_OFFSET_S]) ? x->value[HISTORY_OFFSET_S] : 0;
	c->n++;
}

static void test_schema_created(void **state)
{
	(void)state;
	state_store *s = open_ok(NULL);
	int64_t a, b, a2;
	assert_int_equal(state_store_node_id(s, "node-a", &a), 0);
	assert_int_equal(state_store_node_id(s, "node-b", &b), 0);
	assert_int_equal(state_store_node_id(s, "node-a", &a2), 0);
	assert_int_equal(a, a2);
	assert_true(a != b);
	state_store_close(s);
	assert_int_equal(db_int("PRAGMA user_version"), STATE_SCHEMA_VERSION);
	assert_int_equal(db_int("PRAGMA auto_vacuum"), 2); /* incremental */
	assert_int_equal(
		db_int("SELECT count(*) FROM sqlite_master WHERE name IN ('nodes','samples','recent','events','meta')"), 5);
	assert_int_equal(db_int("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'"), 1);
}

/* A schema-1 file (no clock check, no meta) keeps its rows and gains both. */
static void test_migrates_v1(void **state)
{
	(void)state;
	db_exec("PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL;"
		"CREATE TABLE nodes(id INTEGER PRIMARY KEY, host TEXT NOT NULL UNIQUE);"
		"CREATE TABLE samples(node INTEGER NOT NULL, t REAL NOT NULL, offset_s REAL, frequency_ppm REAL,"
		" skew_ppm REAL, ptp_offset_ns REAL, path_delay_ns REAL, phc_sys_offset_ns REAL,"
		" PRIMARY KEY(node, t)) WITHOUT ROWID;"
		"CREATE TABLE events(id INTEGER PRIMARY KEY, t REAL NOT NULL, host TEXT, scope TEXT NOT NULL,"
		" kind TEXT NOT NULL, group_kind TEXT, subject TEXT, from_value TEXT, to_value TEXT, message TEXT,"
		" grp INTEGER, group_size INTEGER);"
		"CREATE INDEX events_t ON events(t);"
		"INSERT INTO nodes VALUES(1, 'old-node');"
		"INSERT INTO samples(node, t, offset_s) VALUES(1, 1799999000, 0.25);"
		"PRAGMA user_version=1;");
	state_store *s = open_ok(NULL);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "old-node", &id), 0);
	assert_int_equal(id, 1);
	state_sample x = sample_at(NOW, 0.5f, 1.0f);
	x.clock_check_s = 0.125f;
	assert_int_equal(state_store_put_sample(s, id, &x), 0);
	state_store_close(s);
	assert_int_equal(db_int("PRAGMA user_version"), STATE_SCHEMA_VERSION);
	/* nothing was downsampled in schema 1's sense: every row is raw */
	assert_int_equal(db_int("SELECT count(*) FROM recent WHERE node=1"), 2);
	assert_int_equal(db_int("SELECT clock_check_s * 1000 FROM recent WHERE t=1800000000"), 125);
	assert_int_equal(db_int("SELECT offset_s * 100 FROM recent WHERE t=1799999000"), 25);
}

/* A schema-2 file: the minute means before downsampled_until stay in
 * samples, the raw rows after it move to recent, and the next maintenance
 * folds them into minutes from there on. */
static void test_migrates_v2(void **state)
{
	(void)state;
	db_exec("PRAGMA auto_vacuum=INCREMENTAL; PRAGMA journal_mode=WAL;"
		"CREATE TABLE nodes(id INTEGER PRIMARY KEY, host TEXT NOT NULL UNIQUE);"
		"CREATE TABLE samples(node INTEGER NOT NULL, t REAL NOT NULL, offset_s REAL, frequency_ppm REAL,"
		" skew_ppm REAL, ptp_offset_ns REAL, path_delay_ns REAL, phc_sys_offset_ns REAL, clock_check_s REAL,"
		" PRIMARY KEY(node, t)) WITHOUT ROWID;"
		"CREATE TABLE events(id INTEGER PRIMARY KEY, t REAL NOT NULL, host TEXT, scope TEXT NOT NULL,"
		" kind TEXT NOT NULL, group_kind TEXT, subject TEXT, from_value TEXT, to_value TEXT, message TEXT,"
		" grp INTEGER, group_size INTEGER);"
		"CREATE INDEX events_t ON events(t);"
		"CREATE TABLE meta(key TEXT PRIMARY KEY, value);"
		"INSERT INTO nodes VALUES(1, 'old-node'), (2, 'other');"
		"INSERT INTO meta VALUES('downsampled_until', 1799996400);"
		/* two hours ago: 60 minute means, 1.0 ppm */
		"WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 59)"
		" INSERT INTO samples(node, t, offset_s, frequency_ppm) SELECT 1, 1799992800 + 60 * x + 30, 0.5, 1.0 FROM c;"
		/* the last hour raw, one a second, and a clock check */
		"WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 3599)"
		" INSERT INTO samples(node, t, offset_s, frequency_ppm) SELECT 1, 1799996400 + x, 0.25, 2.0 FROM c;"
		"INSERT INTO samples(node, t, clock_check_s) VALUES(2, 1799999000.5, 0.125);"
		"INSERT INTO events(t, host, scope, kind, message) VALUES(1799999000, 'old-node', 'node', 'status', 'kept');"
		"PRAGMA user_version=2;");
	state_store *s = open_ok(NULL);
	assert_int_equal(db_int("PRAGMA user_version"), 3);
	assert_int_equal(db_int("SELECT count(*) FROM samples"), 60);
	assert_int_equal(db_int("SELECT count(*) FROM recent"), 3601);
	assert_int_equal(db_int("SELECT value FROM meta WHERE key='folded_until'"), 1799996400);
	assert_int_equal(db_int("SELECT count(*) FROM meta WHERE key='downsampled_until'"), 0);
	assert_int_equal(db_int("SELECT count(*) FROM events WHERE message='kept'"), 1);
	collected c = {0};
	assert_int_equal(state_store_load_samples(s, 1, 0, collect, &c), 0);
	assert_int_equal(c.n, 60 + 3600);
	assert_true(fabs(c.first_t - 1799992830.0) < 1e-6);
	assert_true(fabs(c.last_t - 1799999999.0) < 1e-6);
	/* the next maintenance folds the raw hour (but the last minute) */
	assert_int_equal(state_store_maintain(s, NOW), 0);
	assert_int_equal(db_int("SELECT count(*) FROM samples WHERE node=1"), 60 + 59);
	assert_int_equal(db_int("SELECT count(*) FROM samples WHERE node=1 AND frequency_ppm=2.0"), 59);
	assert_int_equal(db_int("SELECT clock_check_s * 1000 FROM samples WHERE node=2"), 125);
	double t[200], ppm[200];
	assert_int_equal(state_store_frequency(s, 1, 0, t, ppm, 200), 119);
	state_store_close(s);
}

static void test_newer_schema_refused(void **state)
{
	(void)state;
	state_store_close(open_ok(NULL));
	db_exec("PRAGMA user_version=99");
	char err[STATE_ERROR_LEN];
	assert_null(state_store_open(dir, NULL, err, sizeof err));
	assert_non_null(strstr(err, "newer synctop (schema 99"));
}

static void test_foreign_database_refused(void **state)
{
	(void)state;
	db_exec("CREATE TABLE photos(id INTEGER)");
	char err[STATE_ERROR_LEN];
	assert_null(state_store_open(dir, NULL, err, sizeof err));
	assert_non_null(strstr(err, "not synctop's"));
}

/* Two hours at 1 s, and one sample 8 days old: after maintenance the last
 * hour is whole, the hour before is one averaged point a minute, and the
 * 8-day-old sample and event are gone. */
static void test_downsampling_and_retention(void **state)
{
	(void)state;
	state_store *s = open_ok(NULL);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	assert_int_equal(state_store_begin(s), 0);
	for (int i = 0; i < 7200; i++) {
		double t = NOW - 7200 + i;
		/* minute m of the first hour: offsets 0..59, mean 29.5 */
		state_sample x = sample_at(t, (float)(i % 60), 2.0f);
		assert_int_equal(state_store_put_sample(s, id, &x), 0);
	}
	state_sample old = sample_at(NOW - 8 * 86400.0, 1.0f, 1.0f);
	assert_int_equal(state_store_put_sample(s, id, &old), 0);
	event e_old, e_new;
	int64_t row;
	event_set(&e_old, EVENT_STATUS, 0, NOW - 8 * 86400.0, "", "ok", "warn", "old");
	event_set(&e_new, EVENT_STATUS, 0, NOW - 10, "", "ok", "warn", "new");
	assert_int_equal(state_store_put_event(s, &e_old, "n1", 0, &row), 0);
	assert_int_equal(state_store_put_event(s, &e_new, "n1", 0, &row), 0);
	assert_int_equal(state_store_commit(s), 0);

	assert_int_equal(state_store_maintain(s, NOW), 0);
	collected c = {0};
	assert_int_equal(state_store_load_samples(s, id, 0, collect, &c), 0);
	assert_int_equal(c.n, 3600 + 60);
	assert_true(c.first_t >= NOW - 7200);
	collected hour = {0};
	assert_int_equal(state_store_load_samples(s, id, NOW - 3600, collect, &hour), 0);
	assert_int_equal(hour.n, 3600);
	/* the coarse points: at each minute's middle, the minute's mean */
	collected coarse = {0};
	assert_int_equal(state_store_load_samples(s, id, NOW - 7200, collect, &coarse), 0);
	assert_true(fabs(coarse.first_t - (NOW - 7200 + 30)) < 1e-6);
	assert_true(fabs((coarse.sum_offset - hour.sum_offset) / 60 - 29.5) < 1e-3);
	/* maintenance again changes nothing (the minutes are not averaged twice) */
	assert_int_equal(state_store_maintain(s, NOW + 1), 0);
	collected again = {0};
	assert_int_equal(state_store_load_samples(s, id, 0, collect, &again), 0);
	assert_int_equal(again.n, c.n);
	state_store_close(s);
	assert_int_equal(db_int("SELECT count(*) FROM events"), 1);
	assert_int_equal(db_int("SELECT count(*) FROM events WHERE message='new'"), 1);
}

typedef struct {
	int n;
	int64_t node[8];
	double t[8], ppm[8];
} folded_minutes;

static void on_folded(void *ctx, int64_t node_id, double t, double ppm)
{
	folded_minutes *f = ctx;
	if (f->n < 8) {
		f->node[f->n] = node_id;
		f->t[f->n] = t;
		f->ppm[f->n] = ppm;
	}
	f->n++;
}

/* The maintenance tells each minute it folded (the writer's drift sums),
 * once: the minutes that ended STATE_FOLD_LAG_S ago, their mean frequency
 * at their middle; a minute without a frequency is not told. */
static void test_fold_told(void **state)
{
	(void)state;
	state_store *s = open_ok(NULL);
	int64_t id, other;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	assert_int_equal(state_store_node_id(s, "n2", &other), 0);
	assert_int_equal(state_store_begin(s), 0);
	for (int i = 0; i < 180; i++) {
		state_sample x = sample_at(NOW - 180 + i, 0.0f, (float)(i / 60) + (i % 2 ? 0.5f : -0.5f));
		assert_int_equal(state_store_put_sample(s, id, &x), 0);
		x.value[HISTORY_FREQUENCY_PPM] = NAN;
		assert_int_equal(state_store_put_sample(s, other, &x), 0);
	}
	assert_int_equal(state_store_commit(s), 0);
	folded_minutes f = {0};
	assert_int_equal(state_store_maintain_folding(s, NOW, on_folded, &f), 0);
	assert_int_equal(f.n, 2);
	for (int m = 0; m < 2; m++) {
		assert_int_equal(f.node[m], id);
		assert_true(fabs(f.t[m] - (NOW - 180 + 60 * m + 30)) < 1e-6);
		assert_true(fabs(f.ppm[m] - m) < 1e-6);
	}
	f.n = 0;
	assert_int_equal(state_store_maintain_folding(s, NOW + 30, on_folded, &f), 0);
	assert_int_equal(f.n, 0);
	state_store_close(s);
}

/* Past max_bytes the oldest go first; the newest stay. */
static void test_size_bound(void **state)
{
	(void)state;
	state_limits lim = {.max_bytes = 512 * 1024, .raw_s = 30 * 86400.0, .retention_s = 60 * 86400.0};
	state_store *s = open_ok(&lim);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	assert_int_equal(state_store_begin(s), 0);
	for (int i = 0; i < 40000; i++) {
		state_sample x = sample_at(NOW - 40000 + i, 1.0f, 2.0f);
		assert_int_equal(state_store_put_sample(s, id, &x), 0);
	}
	assert_int_equal(state_store_commit(s), 0);
	assert_true(state_store_bytes(s) > lim.max_bytes);
	assert_int_equal(state_store_maintain(s, NOW), 0);
	assert_true(state_store_bytes(s) <= lim.max_bytes);
	collected c = {0};
	assert_int_equal(state_store_load_samples(s, id, 0, collect, &c), 0);
	assert_true(c.n > 1000 && c.n < 40000);
	assert_true(fabs(c.last_t - (NOW - 1)) < 1e-6);
	assert_true(c.first_t > NOW - 40000);
	state_store_close(s);
	/* deleting shrank the file itself (auto_vacuum=INCREMENTAL) */
	char path[400];
	struct stat st;
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	assert_int_equal(stat(path, &st), 0);
	assert_true((uint64_t)st.st_size <= lim.max_bytes + 64 * 1024);
}

static void test_corrupt_file(void **state)
{
	(void)state;
	char path[400];
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	for (int i = 0; i < 512; i++) {
		fputs("this is not a database, just text. ", f);
	}
	fclose(f);
	char err[STATE_ERROR_LEN];
	assert_null(state_store_open(dir, NULL, err, sizeof err));
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, "move it away"));
}

/* A header intact and the pages after it garbage: found when read, told
 * as corrupt. */
static void test_corrupt_pages(void **state)
{
	(void)state;
	state_store *s = open_ok(NULL);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	assert_int_equal(state_store_begin(s), 0);
	for (int i = 0; i < 5000; i++) {
		state_sample x = sample_at(NOW - 5000 + i, 1.0f, 2.0f);
		assert_int_equal(state_store_put_sample(s, id, &x), 0);
	}
	assert_int_equal(state_store_commit(s), 0);
	assert_int_equal(state_store_maintain(s, NOW), 0); /* checkpointed into the file */
	state_store_close(s);
	char path[400];
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	FILE *f = fopen(path, "r+");
	assert_non_null(f);
	fseek(f, 4096, SEEK_SET);
	for (int i = 0; i < 4096 * 8; i++) {
		fputc(0x5a, f);
	}
	fclose(f);
	char err[STATE_ERROR_LEN] = "";
	s = state_store_open(dir, NULL, err, sizeof err);
	int rc = -1;
	if (s) {
		collected c = {0};
		rc = state_store_load_samples(s, id, 0, collect, &c);
		if (rc != 0) {
			snprintf(err, sizeof err, "%s", state_store_error(s));
		}
		state_store_close(s);
	}
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "move it away"));
}

static void test_second_instance(void **state)
{
	(void)state;
	state_store *s = open_ok(NULL);
	char err[STATE_ERROR_LEN], want[64];
	assert_null(state_store_open(dir, NULL, err, sizeof err));
	snprintf(want, sizeof want, "in use by another synctop (PID %ld)", (long)getpid());
	assert_non_null(strstr(err, want));
	state_store_close(s);
	/* the lock goes with its holder */
	state_store_close(open_ok(NULL));
}

/* The lock held by a process that is not synctop (an sqlite3 shell). */
static void test_locked_by_another_process(void **state)
{
	(void)state;
	state_limits lim = {.busy_timeout_ms = 100};
	state_store *s = open_ok(&lim);
	char path[400];
	sqlite3 *other;
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(state_store_begin(s), -1);
	assert_non_null(strstr(state_store_error(s), "holds the database's lock"));
	sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(other);
	assert_int_equal(state_store_begin(s), 0);
	assert_int_equal(state_store_commit(s), 0);
	state_store_close(s);
}

/* Runs fn in a child; its exit status: 0 passed, 77 skipped, else failed. */
static int in_child(int (*fn)(void))
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		_exit(fn());
	}
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* A private mount namespace with a small tmpfs on dir (root only). */
static int private_tmpfs(const char *size)
{
	char opts[64];
	snprintf(opts, sizeof opts, "size=%s", size);
	if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
	    mount("tmpfs", dir, "tmpfs", 0, opts) != 0) {
		return -1;
	}
	return 0;
}

static int read_only_child(void)
{
	char err[STATE_ERROR_LEN];
	if (geteuid() == 0) {
		if (private_tmpfs("1m") != 0) {
			return 77;
		}
		state_store *s = state_store_open(dir, NULL, err, sizeof err);
		if (!s) {
			return 2;
		}
		state_store_close(s);
		if (mount(NULL, dir, NULL, MS_REMOUNT | MS_RDONLY, NULL) != 0) {
			return 77;
		}
	} else if (chmod(dir, 0500) != 0) {
		return 3;
	}
	if (state_store_open(dir, NULL, err, sizeof err)) {
		return 4;
	}
	fprintf(stderr, "read-only: %s\n", err);
	return strstr(err, "cannot be written") ? 0 : 5;
}

static void test_read_only_dir(void **state)
{
	(void)state;
	int rc = in_child(read_only_child);
	if (rc == 77) {
		skip();
	}
	assert_int_equal(rc, 0);
}

/* A full disk: a 256 KiB tmpfs as root, else RLIMIT_FSIZE. */
static int full_child(void)
{
	if (geteuid() != 0 || private_tmpfs("256k") != 0) {
		struct rlimit rl = {256 * 1024, 256 * 1024};
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
			return 77;
		}
	}
	char err[STATE_ERROR_LEN];
	state_store *s = state_store_open(dir, NULL, err, sizeof err);
	if (!s) {
		return 2;
	}
	int64_t id;
	if (state_store_node_id(s, "n1", &id) != 0) {
		return 3;
	}
	int rc = 0;
	for (int batch = 0; batch < 1000 && rc == 0; batch++) {
		rc = state_store_begin(s);
		for (int i = 0; i < 1000 && rc == 0; i++) {
			state_sample x = sample_at(NOW + batch * 1000 + i, 1.0f, 2.0f);
			rc = state_store_put_sample(s, id, &x);
		}
		if (rc == 0) {
			rc = state_store_commit(s);
		} else {
			state_store_rollback(s);
		}
	}
	fprintf(stderr, "full: %s\n", state_store_error(s));
	bool told = strstr(state_store_error(s), "full") || strstr(state_store_error(s), "I/O error");
	state_store_close(s);
	return rc != 0 && told ? 0 : 4;
}

static void test_full_disk(void **state)
{
	(void)state;
	int rc = in_child(full_child);
	if (rc == 77) {
		skip();
	}
	assert_int_equal(rc, 0);
}

/* ------------------------------------------------------------- the writer */

typedef struct {
	int failures, recoveries;
	char err[STATE_ERROR_LEN];
} outcome;

static void on_done(void *ctx, const char *err)
{
	outcome *o = ctx;
	if (err) {
		o->failures++;
		snprintf(o->err, sizeof o->err, "%s", err);
	} else {
		o->recoveries++;
	}
}

static void on_give_up(struct ev_loop *loop, ev_timer *w, int revents)
{
	(void)w;
	(void)revents;
	ev_break(loop, EVBREAK_ALL);
}

static void run_for(struct ev_loop *loop, double seconds)
{
	ev_timer t;
	ev_timer_init(&t, on_give_up, seconds, 0);
	ev_timer_start(loop, &t);
	ev_run(loop, 0);
	ev_timer_stop(loop, &t);
}

typedef struct {
	int64_t rows[8];
	int64_t group_rows[8];
	char hosts[8][32];
	event events[8];
	size_t n;
} loaded_events;

static void collect_event(void *ctx, int64_t row, const event *e, const char *host, int64_t group_row)
{
	loaded_events *l = ctx;
	if (l->n < 8) {
		l->rows[l->n] = row;
		l->group_rows[l->n] = group_row;
		snprintf(l->hosts[l->n], sizeof l->hosts[l->n], "%s", host ? host : "(none)");
		l->events[l->n] = *e;
		l->n++;
	}
}

/* Samples and a group of events go through the thread and come back,
 * members pointing at their group's row. */
static void test_writer_round_trip(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	state_store *s = open_ok(NULL);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	outcome o = {0};
	state_writer *w = state_writer_new(loop, s, 0, on_done, &o);
	assert_non_null(w);
	for (int i = 0; i < 100; i++) {
		state_sample x = sample_at(NOW + i, 0.001f * (float)i, 3.0f);
		assert_true(state_writer_sample(w, id, &x));
	}
	event g, m1, m2;
	event_set(&g, EVENT_GROUP, EVENT_NODE_GROUP, NOW, "", "a", "b", "2 nodes: a -> b");
	g.group_kind = EVENT_PTP_GRANDMASTER;
	g.group_size = 2;
	g.id = 7;
	event_set(&m1, EVENT_PTP_GRANDMASTER, 0, NOW, "", "a", "b", "m1");
	m1.id = 8;
	m1.group = 7;
	event_set(&m2, EVENT_PTP_GRANDMASTER, 1, NOW, "", "a", "b", "m2");
	m2.id = 9;
	m2.group = 7;
	assert_true(state_writer_event(w, &g, NULL));
	assert_true(state_writer_event(w, &m1, "n1"));
	assert_true(state_writer_event(w, &m2, "n2"));
	run_for(loop, 1.5); /* committed within a second, while running */
	assert_int_equal(db_int("SELECT count(*) FROM recent"), 100);
	state_writer_free(w, 2.0);
	assert_int_equal(o.failures, 0);

	char err[STATE_ERROR_LEN];
	state_store *r = state_store_open_reader(dir, err, sizeof err);
	assert_non_null(r);
	loaded_events l = {0};
	assert_int_equal(state_store_load_events(r, 0, 100, collect_event, &l), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.events[0].kind, EVENT_GROUP);
	assert_int_equal(l.events[0].group_kind, EVENT_PTP_GRANDMASTER);
	assert_int_equal(l.events[0].group_size, 2);
	assert_string_equal(l.hosts[0], "(none)");
	assert_int_equal(l.group_rows[1], l.rows[0]);
	assert_int_equal(l.group_rows[2], l.rows[0]);
	assert_string_equal(l.hosts[2], "n2");
	assert_string_equal(l.events[2].message, "m2");
	double off[10], freq[10];
	assert_int_equal(state_store_series(r, "n1", NOW, NOW + 100, 10, off, freq), 10);
	assert_true(fabs(off[0] - 0.0045) < 1e-6);
	assert_true(fabs(freq[9] - 3.0) < 1e-6);
	assert_int_equal(state_store_series(r, "nobody", NOW, NOW + 100, 10, off, freq), 0);
	state_store_close(r);
	ev_loop_destroy(loop);
}

/* A sample arriving while the thread idles is committed within a second,
 * not at the next maintenance (the thread once slept through its wake-up). */
static void test_writer_commits_every_second(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	state_store *s = open_ok(NULL);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	outcome o = {0};
	state_writer *w = state_writer_new(loop, s, 0, on_done, &o);
	for (int i = 0; i < 3; i++) {
		state_sample x = sample_at(NOW + i, 1.0f, 2.0f);
		assert_true(state_writer_sample(w, id, &x));
		/* within a second when idle; up to 3 s on a loaded machine, still
		 * before the first maintenance (5 s) that the old thread waited for */
		for (int k = 0; k < 30 && db_int("SELECT count(*) FROM recent") < i + 1; k++) {
			run_for(loop, 0.1);
		}
		assert_int_equal(db_int("SELECT count(*) FROM recent"), i + 1);
	}
	state_writer_free(w, 2.0);
	assert_int_equal(o.failures, 0);
	ev_loop_destroy(loop);
}

/* The live path of chrony.drift_daily: the thread computes each tracked
 * node's trend at its first maintenance (5 s after start) and publishes it. */
static void test_writer_drift(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	state_store *s = open_ok(NULL);
	int64_t ids[2];
	assert_int_equal(state_store_node_id(s, "ageing", &ids[0]), 0);
	assert_int_equal(state_store_node_id(s, "young", &ids[1]), 0);
	double now = (double)time(NULL);
	assert_int_equal(state_store_begin(s), 0);
	for (int m = 0; m < 2 * 1440; m++) {
		double t = now - 2 * 86400.0 + m * 60.0;
		state_sample x = sample_at(t, 0.0f, (float)(4.0 + 3.0 * m / 1440.0)); /* +3 ppm/day */
		assert_int_equal(state_store_put_sample(s, ids[0], &x), 0);
		if (m > 2 * 1440 - 600) { /* ten hours: not a day */
			assert_int_equal(state_store_put_sample(s, ids[1], &x), 0);
		}
	}
	assert_int_equal(state_store_commit(s), 0);
	outcome o = {0};
	state_writer *w = state_writer_new(loop, s, 0, on_done, &o);
	state_writer_track_drift(w, ids, 2);
	double drift[2] = {0, 0};
	assert_int_equal(state_writer_drift(w, 0, drift, 2), 0);
	unsigned gen = 0;
	for (int i = 0; i < 40 && gen == 0; i++) {
		run_for(loop, 0.25);
		gen = state_writer_drift(w, 0, drift, 2);
	}
	assert_int_equal(gen, 1);
	assert_true(fabs(drift[0] - 3.0) < 0.01);
	assert_true(isnan(drift[1]));
	assert_int_equal(state_writer_drift(w, gen, drift, 2), gen); /* nothing newer */
	state_writer_free(w, 2.0);
	assert_int_equal(o.failures, 0);
	ev_loop_destroy(loop);
}

/* A write that fails is told once; the writer keeps what it could not
 * write, retries after STATE_WRITER_RETRY_FIRST_S, and tells the loop when
 * the lock is free again, the samples of both sides written. */
static void test_writer_failure_retried(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	state_limits lim = {.busy_timeout_ms = 50};
	state_store *s = open_ok(&lim);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	char path[400];
	sqlite3 *other;
	snprintf(path, sizeof path, "%s/%s", dir, STATE_DB_NAME);
	assert_int_equal(sqlite3_open(path, &other), SQLITE_OK);
	assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);
	outcome o = {0};
	state_writer *w = state_writer_new(loop, s, 0, on_done, &o);
	state_sample x = sample_at(NOW, 1.0f, 2.0f);
	assert_true(state_writer_sample(w, id, &x));
	for (int i = 0; i < 100 && o.failures == 0; i++) {
		run_for(loop, 0.1); /* the thread's 50 ms wait for the lock, on a loaded machine */
	}
	assert_int_equal(o.failures, 1);
	assert_non_null(strstr(o.err, "lock"));
	x.t = NOW + 1;
	assert_true(state_writer_sample(w, id, &x)); /* still taken: held for the retry */
	run_for(loop, 1.0);
	assert_int_equal(o.failures, 1); /* told once, not at each attempt */
	sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_close(other);
	for (int i = 0; i < 150 && o.recoveries == 0; i++) {
		run_for(loop, 0.1);
	}
	assert_int_equal(o.recoveries, 1);
	assert_int_equal(db_int("SELECT count(*) FROM recent"), 2);
	assert_int_equal(state_writer_dropped(w), 0);
	state_writer_free(w, 2.0);
	ev_loop_destroy(loop);
}

/* A full disk (a small tmpfs as root, else RLIMIT_FSIZE): the writer says
 * so, then, once there is room again, writes what it held and goes on. */
static int full_then_room_child(void)
{
	struct rlimit rl;
	bool tmpfs = geteuid() == 0 && private_tmpfs("320k") == 0;
	if (!tmpfs) {
		signal(SIGXFSZ, SIG_IGN);
		if (getrlimit(RLIMIT_FSIZE, &rl) != 0) {
			return 77;
		}
		struct rlimit small = {320 * 1024, rl.rlim_max};
		if (setrlimit(RLIMIT_FSIZE, &small) != 0) {
			return 77;
		}
	}
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	char err[STATE_ERROR_LEN];
	state_store *s = state_store_open(dir, NULL, err, sizeof err);
	if (!s) {
		fprintf(stderr, "open: %s\n", err);
		return 2;
	}
	int64_t id;
	if (state_store_node_id(s, "n1", &id) != 0) {
		return 3;
	}
	outcome o = {0};
	state_writer *w = state_writer_new(loop, s, 0, on_done, &o);
	size_t fed = 0;
	for (int round = 0; round < 200 && o.failures == 0; round++) {
		for (int i = 0; i < 500; i++, fed++) {
			state_sample x = sample_at(NOW + (double)fed, 1.0f, 2.0f);
			if (!state_writer_sample(w, id, &x)) {
				return 4;
			}
		}
		run_for(loop, 0.2);
	}
	fprintf(stderr, "full: %s\n", o.err);
	if (o.failures != 1 || !(strstr(o.err, "full") || strstr(o.err, "I/O error"))) {
		return 5;
	}
	/* room again */
	if (tmpfs) {
		if (mount(NULL, dir, NULL, MS_REMOUNT, "size=16m") != 0) {
			return 6;
		}
	} else if (setrlimit(RLIMIT_FSIZE, &rl) != 0) {
		return 6;
	}
	for (int i = 0; i < 500; i++, fed++) {
		state_sample x = sample_at(NOW + (double)fed, 1.0f, 2.0f);
		state_writer_sample(w, id, &x);
	}
	for (int i = 0; i < 200 && o.recoveries == 0; i++) {
		run_for(loop, 0.1); /* the first retry after 5 s */
	}
	state_writer_free(w, 5.0);
	ev_loop_destroy(loop);
	long long written = db_int("SELECT count(*) FROM recent");
	fprintf(stderr, "recovered %d time(s); %lld of %zu samples written\n", o.recoveries, written, fed);
	return o.recoveries == 1 && written == (long long)fed ? 0 : 7;
}

static void test_writer_full_disk_recovers(void **state)
{
	(void)state;
	int rc = in_child(full_then_room_child);
	if (rc == 77) {
		skip();
	}
	assert_int_equal(rc, 0);
}

/* The queue is bounded: past queue_max the newest are dropped and counted. */
static void test_writer_queue_bounded(void **state)
{
	(void)state;
	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	state_store *s = open_ok(NULL);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	outcome o = {0};
	state_writer *w = state_writer_new(loop, s, 10, on_done, &o);
	size_t taken = 0;
	for (int i = 0; i < 100; i++) {
		state_sample x = sample_at(NOW + i, 1.0f, 2.0f);
		taken += state_writer_sample(w, id, &x);
	}
	/* the thread may have taken one batch before the rest arrived */
	assert_true(taken >= 10 && taken <= 20);
	assert_int_equal(state_writer_dropped(w), 100 - taken);
	state_writer_free(w, 2.0);
	ev_loop_destroy(loop);
}

/* A restart puts the stored clock checks back into the node's clock-check
 * ring, next to its samples, and hands over only the checks made after. */
static void test_state_run_restores_clock_checks(void **state)
{
	(void)state;
	double now = floor((double)time(NULL));
	state_store *s = open_ok(NULL);
	int64_t id;
	assert_int_equal(state_store_node_id(s, "n1", &id), 0);
	assert_int_equal(state_store_begin(s), 0);
	for (int i = 0; i < 5; i++) {
		state_sample x = sample_at(now - 100 + i, 0.001f, 2.0f);
		assert_int_equal(state_store_put_sample(s, id, &x), 0);
	}
	for (int i = 0; i < 3; i++) {
		state_sample c = sample_at(now - 90 + 30 * i + 0.5, NAN, NAN);
		c.value[HISTORY_FREQUENCY_PPM] = NAN;
		c.clock_check_s = 0.25f * (float)(i + 1);
		assert_int_equal(state_store_put_sample(s, id, &c), 0);
	}
	assert_int_equal(state_store_commit(s), 0);
	state_store_close(s);

	struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
	node *n = calloc(1, sizeof *n);
	assert_non_null(n);
	node_init(n, "n1");
	state_run_config cfg = {.dir = dir, .interval_s = 1.0};
	state_run *r = state_run_start(loop, &cfg, n, 1, NULL);
	assert_true(state_run_active(r));
	assert_int_equal(history_count(&n->history), 5);
	assert_int_equal(history_clock_count(&n->history), 3);
	assert_true(fabs(history_clock_at(&n->history, 0)->t - (now - 89.5)) < 1e-6);
	assert_true(fabs(history_clock_at(&n->history, 2)->offset_s - 0.75f) < 1e-6);
	/* one check more: only it goes to the store */
	history_push_clock(&n->history, now - 10, 1.0);
	state_run_feed_samples(r);
	state_run_free(r, 5.0);
	assert_int_equal(db_int("SELECT count(*) FROM recent WHERE clock_check_s IS NOT NULL"), 4);
	assert_int_equal(db_int("SELECT count(*) FROM recent WHERE clock_check_s IS NULL"), 5);
	free(n);
	ev_loop_destroy(loop);
}

static void test_default_dir(void **state)
{
	(void)state;
	char out[256];
	setenv("XDG_STATE_HOME", "/x/state", 1);
	assert_int_equal(state_store_default_dir(out, sizeof out), 0);
	assert_string_equal(out, "/x/state/synctop");
	setenv("XDG_STATE_HOME", "relative", 1); /* ignored, as the XDG spec says */
	setenv("HOME", "/home/op", 1);
	assert_int_equal(state_store_default_dir(out, sizeof out), 0);
	assert_string_equal(out, "/home/op/.local/state/synctop");
	unsetenv("XDG_STATE_HOME");
	unsetenv("HOME");
	assert_int_equal(state_store_default_dir(out, sizeof out), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_schema_created, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_v1, setup, teardown),
		cmocka_unit_test_setup_teardown(test_migrates_v2, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_database_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_downsampling_and_retention, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_bound, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fold_told, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_second_instance, setup, teardown),
		cmocka_unit_test_setup_teardown(test_locked_by_another_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_only_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_disk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_commits_every_second, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_drift, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_failure_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_full_disk_recovers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_run_restores_clock_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_queue_bounded, setup, teardown),
		cmocka_unit_test(test_default_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
