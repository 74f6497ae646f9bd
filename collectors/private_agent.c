/* private_agent.c - encrypted identity files and synctop's private ssh-agent.
 *
 * The agent runs as `ssh-agent -a DIR/agent.sock -- /bin/sh -c KEEPER`.
 * ssh-agent forks: the agent proper is the child, and our direct child (the
 * "keeper") execs the shell, which sends us $SSH_AGENT_PID and then becomes
 * `cat` on a pipe that only synctop writes to.  The keeper exits at EOF on
 * that pipe, whatever ended synctop, and ssh-agent exits when its parent (the
 * keeper) is gone: so the agent never outlives synctop by more than the 10 s
 * of ssh-agent's parent check.  At a normal exit we SIGTERM it at once.
 *
 * Passphrases: ssh-add reads them from the terminal itself.  synctop never
 * sees, stores or logs one, so there is nothing of it to wipe here. */
#include <config.h>

#include "private_agent.h"

#include <errno.h>
#include <fcntl.h>
#include <libssh2.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base64.h"
#include "log.h"
#include "xalloc.h"

#define KEY_FILE_READ_MAX 65536 /* key files are a few KiB; only their head matters */
#define BLOB_MAX 4096           /* an RSA-16384 public key blob is about 2 KiB */
#define START_TIMEOUT_MS 5000
#define STOP_WAIT_MS 1000

/* Prints the agent's pid, then waits for EOF on stdin (synctop's end of the
 * pipe closing) without holding our stdout open. */
static const char keeper_script[] = "echo \"$SSH_AGENT_PID\"; exec cat >/dev/null";

typedef struct {
	char *path;
	unsigned char *blob; /* NULL when its public half is not known */
	size_t blob_len;
} loaded_key;

static struct {
	pid_t owner;      /* the process that started the agent; its forks must not stop it */
	pid_t keeper;     /* our child: ssh-agent's parent, then `cat` on keeper_fd's pipe */
	pid_t agent;      /* ssh-agent itself; 0 = not running */
	int keeper_fd;    /* write end of the keeper's stdin */
	char sock[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)]; /* 0700, holds only sock */
	bool hooks;       /* atexit and signal handlers installed */
	loaded_key *keys;
	size_t n_keys;
} A = {.keeper_fd = -1};

/* --------------------------------------------------- key files, pure */

typedef struct {
	const unsigned char *p;
	size_t left;
} reader;

static bool read_u32(reader *r, uint32_t *v)
{
	if (r->left < 4) {
		return false;
	}
	*v = (uint32_t)r->p[0] << 24 | (uint32_t)r->p[1] << 16 | (uint32_t)r->p[2] << 8 | r->p[3];
	r->p += 4;
	r->left -= 4;
	return true;
}

static bool read_string(reader *r, const unsigned char **s, uint32_t *len)
{
	if (!read_u32(r, len) || *len > r->left) {
		return false;
	}
	*s = r->p;
	r->p += *len;
	r->left -= *len;
	return true;
}


static bool label_is(const char *label, size_t len, const char *want)
{
	return len == strlen(want) && memcmp(label, want, len) == 0;
}

static bool label_ends_with(const char *label, size_t len, const char *tail)
{
	size_t t = strlen(tail);
	return len >= t && memcmp(label + len - t, tail, t) == 0;
}

/* The first "-----BEGIN LABEL-----" line: its label, and where the body
 * starts (the next line). */
static bool pem_begin(const char *text, size_t len, const char **label, size_t *label_len, size_t *body)
{
	static const char begin[] = "-----BEGIN ";
	const char *b = memmem(text, len, begin, sizeof begin - 1);
	if (!b) {
		return false;
	}
	size_t at = (size_t)(b - text) + sizeof begin - 1;
	const char *nl = memchr(text + at, '\n', len - at);
	size_t line_end = nl ? (size_t)(nl - text) : len;
	const char *dashes = memmem(text + at, line_end - at, "-----", 5);
	if (!dashes) {
		return false;
	}
	*label = text + at;
	*label_len = (size_t)(dashes - (text + at));
	*body = nl ? line_end + 1 : len;
	return true;
}

/* Decodes an OpenSSH-format key's body into buf and returns a reader just
 * past the "openssh-key-v1\0" magic; false if it is not one. */
static bool openssh_open(const char *text, size_t len, unsigned char *buf, size_t cap, reader *r)
{
	static const char magic[] = "openssh-key-v1"; /* and its NUL */
	const char *label;
	size_t label_len, body;

	if (!pem_begin(text, len, &label, &label_len, &body) || !label_is(label, label_len, "OPENSSH PRIVATE KEY")) {
		return false;
	}
	size_t n = base64_decode_lenient(text + body, len - body, buf, cap);
	if (n < sizeof magic || memcmp(buf, magic, sizeof magic) != 0) {
		return false;
	}
	r->p = buf + sizeof magic;
	r->left = n - sizeof magic;
	return true;
}

/* Legacy PEM: RFC 1421 headers ("Name: value" lines) follow the BEGIN line;
 * an encrypted key says "Proc-Type: 4,ENCRYPTED". */
static bool pem_headers_say_encrypted(const char *text, size_t len)
{
	static const char proc_type[] = "Proc-Type:";
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *line = text + at;
		size_t line_len = end - at;
		if (!memchr(line, ':', line_len)) {
			return false; /* the base64 body: headers are over */
		}
		if (line_len >= sizeof proc_type - 1 && memcmp(line, proc_type, sizeof proc_type - 1) == 0 &&
		    memmem(line, line_len, "ENCRYPTED", 9)) {
			return true;
		}
		at = end + 1;
	}
	return false;
}

key_file_protection private_agent_classify(const char *text, size_t len)
{
	const char *label;
	size_t label_len, body;

	if (!text || !pem_begin(text, len, &label, &label_len, &body)) {
		return KEY_FILE_UNKNOWN;
	}
	if (label_is(label, label_len, "OPENSSH PRIVATE KEY")) {
		unsigned char buf[256];
		reader r;
		const unsigned char *cipher;
		uint32_t cipher_len;
		if (!openssh_open(text, len, buf, sizeof buf, &r) || !read_string(&r, &cipher, &cipher_len)) {
			return KEY_FILE_UNKNOWN;
		}
		return cipher_len == 4 && memcmp(cipher, "none", 4) == 0 ? KEY_FILE_PLAIN : KEY_FILE_ENCRYPTED;
	}
	if (label_is(label, label_len, "ENCRYPTED PRIVATE KEY")) {
		return KEY_FILE_ENCRYPTED; /* PKCS#8 */
	}
	if (label_ends_with(label, label_len, "PRIVATE KEY")) {
		/* "RSA PRIVATE KEY", "EC PRIVATE KEY", "DSA PRIVATE KEY", PKCS#8 "PRIVATE KEY" */
		return pem_headers_say_encrypted(text + body, len - body) ? KEY_FILE_ENCRYPTED : KEY_FILE_PLAIN;
	}
	return KEY_FILE_UNKNOWN;
}

size_t private_agent_key_public_blob(const char *text, size_t len, unsigned char *blob, size_t cap)
{
	/* magic, cipher, kdf, kdf options (a few dozen bytes) and one public key */
	unsigned char buf[BLOB_MAX + 512];
	reader r;
	const unsigned char *s, *pub;
	uint32_t slen, nkeys, pub_len;

	if (!text || !openssh_open(text, len, buf, sizeof buf, &r)) {
		return 0;
	}
	if (!read_string(&r, &s, &slen) || !read_string(&r, &s, &slen) || !read_string(&r, &s, &slen) ||
	    !read_u32(&r, &nkeys) || nkeys < 1 || !read_string(&r, &pub, &pub_len)) {
		return 0;
	}
	if (pub_len == 0 || pub_len > cap) {
		return 0;
	}
	memcpy(blob, pub, pub_len);
	return pub_len;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

size_t private_agent_pub_line_blob(const char *text, size_t len, unsigned char *blob, size_t cap)
{
	unsigned char buf[BLOB_MAX + 1];
	size_t i = 0;

	if (!text) {
		return 0;
	}
	while (i < len && is_blank(text[i])) {
		i++;
	}
	size_t type_at = i;
	while (i < len && text[i] > ' ' && text[i] < 0x7f) {
		i++;
	}
	size_t type_len = i - type_at;
	if (type_len == 0 || type_len > 64 || i >= len || !is_blank(text[i])) {
		return 0;
	}
	while (i < len && is_blank(text[i])) {
		i++;
	}
	size_t b64_at = i;
	while (i < len && text[i] > ' ' && text[i] < 0x7f) {
		i++;
	}
	size_t n = base64_decode_lenient(text + b64_at, i - b64_at, buf, sizeof buf);
	if (n == 0 || n > BLOB_MAX || n > cap) {
		return 0;
	}
	/* A key blob starts with its own type name: this was a key, not noise. */
	reader r = {buf, n};
	const unsigned char *type;
	uint32_t tl;
	if (!read_string(&r, &type, &tl) || tl != type_len || memcmp(type, text + type_at, tl) != 0) {
		return 0;
	}
	memcpy(blob, buf, n);
	return n;
}

/* ------------------------------------------------------ key files, I/O */

/* The first KEY_FILE_READ_MAX bytes of a regular file; NULL when it cannot
 * be read.  The caller wipes (it may be a private key) and frees. */
static char *read_head(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0) {
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	char *buf = xmalloc(KEY_FILE_READ_MAX);
	size_t n = 0;
	while (n < KEY_FILE_READ_MAX) {
		ssize_t r = read(fd, buf + n, KEY_FILE_READ_MAX - n);
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			break;
		}
		n += (size_t)r;
	}
	close(fd);
	*len = n;
	return buf;
}

static void wipe_free(char *buf, size_t len)
{
	if (buf) {
		explicit_bzero(buf, len);
		free(buf);
	}
}

/* The public half of a key file: from an OpenSSH-format file itself, else
 * from PATH.pub. */
static size_t file_public_blob(const char *path, const char *text, size_t len, unsigned char *blob, size_t cap)
{
	size_t n = private_agent_key_public_blob(text, len, blob, cap);
	if (n) {
		return n;
	}
	char pub[PATH_MAX + 8];
	if ((size_t)snprintf(pub, sizeof pub, "%s.pub", path) >= sizeof pub) {
		return 0;
	}
	size_t pub_len = 0;
	char *pub_text = read_head(pub, &pub_len);
	if (!pub_text) {
		return 0;
	}
	n = private_agent_pub_line_blob(pub_text, pub_len, blob, cap);
	wipe_free(pub_text, KEY_FILE_READ_MAX);
	return n;
}

/* ------------------------------------------------------------ agents */

/* Return true to stop the walk. */
typedef bool (*identity_fn)(void *ctx, const unsigned char *blob, size_t len);

/* Walks an agent's identities; sock NULL = the user's agent ($SSH_AUTH_SOCK).
 * Blocking, on a session that never connects anywhere: start-up only.
 * Returns -1 when the agent cannot be asked. */
static int agent_each(const char *sock, identity_fn fn, void *ctx)
{
	LIBSSH2_SESSION *s = libssh2_session_init();
	int rc = -1;
	if (!s) {
		return -1;
	}
	LIBSSH2_AGENT *ag = libssh2_agent_init(s);
	if (ag) {
		if (sock) {
			libssh2_agent_set_identity_path(ag, sock);
		}
		if (libssh2_agent_connect(ag) == 0) {
			if (libssh2_agent_list_identities(ag) == 0) {
				struct libssh2_agent_publickey *id = NULL, *prev = NULL;
				rc = 0;
				while (libssh2_agent_get_identity(ag, &id, prev) == 0) {
					if (fn(ctx, id->blob, id->blob_len)) {
						break;
					}
					prev = id;
				}
			}
			libssh2_agent_disconnect(ag);
		}
		libssh2_agent_free(ag);
	}
	libssh2_session_free(s);
	return rc;
}

typedef struct {
	const unsigned char *blob;
	size_t len;
	bool found;
} blob_search;

static bool find_blob(void *ctx, const unsigned char *blob, size_t len)
{
	blob_search *s = ctx;
	s->found = len == s->len && memcmp(blob, s->blob, len) == 0;
	return s->found;
}

static bool user_agent_holds(const unsigned char *blob, size_t len)
{
	const char *sock = getenv("SSH_AUTH_SOCK");
	blob_search s = {blob, len, false};
	if (!sock || !*sock) {
		return false;
	}
	return agent_each(NULL, find_blob, &s) == 0 && s.found;
}

typedef struct {
	unsigned char **blobs;
	size_t *lens;
	size_t n;
} blob_set;

static bool collect_blob(void *ctx, const unsigned char *blob, size_t len)
{
	blob_set *set = ctx;
	set->blobs = xrealloc(set->blobs, (set->n + 1) * sizeof *set->blobs);
	set->lens = xrealloc(set->lens, (set->n + 1) * sizeof *set->lens);
	set->blobs[set->n] = xmalloc(len ? len : 1);
	memcpy(set->blobs[set->n], blob, len);
	set->lens[set->n++] = len;
	return false;
}

static bool set_has(const blob_set *set, const unsigned char *blob, size_t len)
{
	for (size_t i = 0; i < set->n; i++) {
		if (set->lens[i] == len && memcmp(set->blobs[i], blob, len) == 0) {
			return true;
		}
	}
	return false;
}

static void set_free(blob_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->blobs[i]);
	}
	free(set->blobs);
	free(set->lens);
	memset(set, 0, sizeof *set);
}

/* ---------------------------------------------------------- processes */

/* Signals as a fresh program expects them: synctop ignores SIGPIPE (exec
 * keeps that), and libev may have blocked signals it reads via signalfd. */
static void child_defaults(void)
{
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
}

/* fd onto target, without close-on-exec (dup2 onto itself keeps the flag). */
static void move_fd(int fd, int target)
{
	if (fd == target) {
		fcntl(fd, F_SETFD, 0);
	} else {
		dup2(fd, target);
	}
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

static int wait_child(pid_t pid, int *status)
{
	pid_t r;
	do {
		r = waitpid(pid, status, 0);
	} while (r < 0 && errno == EINTR);
	return r == pid ? 0 : -1;
}

/* Async-signal-safe.  Someone accepts on the socket: the agent, which alone
 * holds it, is alive, so its pid is still its own. */
static bool agent_answers(const char *sock)
{
	struct sockaddr_un sa;
	size_t len = strlen(sock);
	if (len == 0 || len >= sizeof sa.sun_path) {
		return false;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return false;
	}
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path, sock, len + 1);
	bool ok = connect(fd, (const struct sockaddr *)&sa, sizeof sa) == 0;
	close(fd);
	return ok;
}

/* Reaps child pid if it exits within ms; false if it is still running.  A
 * child that libev's SIGCHLD handler already reaped counts as reaped. */
static bool reap_within(pid_t pid, int *status, int ms)
{
	*status = 0;
	for (int i = 0; i <= ms / 10; i++) {
		pid_t r = waitpid(pid, status, WNOHANG);
		if (r == pid || (r < 0 && errno == ECHILD)) {
			return true;
		}
		sleep_ms(10);
	}
	return false;
}

/* The keeper exits at EOF on its stdin; it is killed only while waitpid
 * says it is still ours (not reaped, so its pid cannot be someone else's). */
static void reap_keeper(pid_t keeper)
{
	int status;
	if (!reap_within(keeper, &status, STOP_WAIT_MS)) {
		kill(keeper, SIGKILL);
		wait_child(keeper, &status);
	}
}

/* Async-signal-safe when !wait (the signal handler's case). */
static void stop_agent(bool wait)
{
	pid_t agent = A.agent, keeper = A.keeper;
	int fd = A.keeper_fd;

	A.agent = 0;
	A.keeper = 0;
	A.keeper_fd = -1;
	if (agent > 0 && agent_answers(A.sock)) {
		kill(agent, SIGTERM);
		for (int i = 0; wait && i < STOP_WAIT_MS / 10 && agent_answers(A.sock); i++) {
			sleep_ms(10);
		}
	}
	if (fd >= 0) {
		close(fd);
	}
	if (keeper > 0 && wait) {
		reap_keeper(keeper);
	}
	if (A.sock[0]) {
		unlink(A.sock);
		A.sock[0] = '\0';
	}
	if (A.dir[0]) {
		rmdir(A.dir);
		A.dir[0] = '\0';
	}
}

static void on_exit_stop(void)
{
	if (A.owner == getpid()) {
		stop_agent(true);
	}
}

static void on_fatal_signal(int sig)
{
	int saved = errno;
	if (A.owner == getpid()) {
		stop_agent(false);
	}
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/* Until the event loop installs its own (and then exits through
 * private_agent_stop), these signals stop the agent before synctop dies.
 * A signal the user set to be ignored (nohup) stays ignored. */
static void install_hooks(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	if (A.hooks) {
		return;
	}
	A.hooks = true;
	atexit(on_exit_stop);
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
		struct sigaction old, sa;
		if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL) {
			continue;
		}
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = on_fatal_signal;
		sigemptyset(&sa.sa_mask);
		sigaction(sigs[i], &sa, NULL);
	}
}

static int make_dir(char *err, size_t err_len)
{
	static const char name[] = "/agent.sock";
	const char *base = getenv("TMPDIR");
	if (!base || base[0] != '/') {
		base = "/tmp";
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		int n = snprintf(A.dir, sizeof A.dir, "%s/synctop-agent.XXXXXX", base);
		if (n > 0 && (size_t)n + sizeof name <= sizeof A.sock) {
			break;
		}
		base = "/tmp"; /* a socket path must fit in sun_path */
	}
	/* mkdtemp makes it 0700: nobody else can reach the socket. */
	if (!mkdtemp(A.dir)) {
		snprintf(err, err_len, "cannot create a directory for its socket (%s): %s", A.dir, strerror(errno));
		A.dir[0] = '\0';
		return -1;
	}
	if ((size_t)snprintf(A.sock, sizeof A.sock, "%s%s", A.dir, name) >= sizeof A.sock) {
		snprintf(err, err_len, "socket path too long");
		rmdir(A.dir);
		A.dir[0] = A.sock[0] = '\0';
		return -1;
	}
	return 0;
}

/* The keeper's first line: $SSH_AGENT_PID.  0 on EOF, garbage or timeout. */
static pid_t read_agent_pid(int fd)
{
	char line[32] = "";
	size_t n = 0;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (n < sizeof line - 1 && !memchr(line, '\n', n)) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		long spent = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= START_TIMEOUT_MS) {
			return 0;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, (int)(START_TIMEOUT_MS - spent));
		if (r < 0 && errno == EINTR) {
			continue;
		}
		if (r <= 0) {
			return 0;
		}
		ssize_t got = read(fd, line + n, sizeof line - 1 - n);
		if (got < 0 && errno == EINTR) {
			continue;
		}
		if (got <= 0) {
			break;
		}
		n += (size_t)got;
	}
	line[n] = '\0';
	char *end;
	long pid = strtol(line, &end, 10);
	if (end == line || (*end != '\n' && *end != '\0') || pid <= 1 || pid > INT_MAX) {
		return 0;
	}
	return (pid_t)pid;
}

int private_agent_start(char *err, size_t err_len)
{
	int to_keeper[2], from_keeper[2];

	if (A.agent > 0) {
		return 0;
	}
	if (make_dir(err, err_len) != 0) {
		return -1;
	}
	if (pipe2(to_keeper, O_CLOEXEC) != 0) {
		snprintf(err, err_len, "pipe: %s", strerror(errno));
		stop_agent(true);
		return -1;
	}
	if (pipe2(from_keeper, O_CLOEXEC) != 0) {
		snprintf(err, err_len, "pipe: %s", strerror(errno));
		close(to_keeper[0]);
		close(to_keeper[1]);
		stop_agent(true);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, err_len, "fork: %s", strerror(errno));
		close(to_keeper[0]);
		close(to_keeper[1]);
		close(from_keeper[0]);
		close(from_keeper[1]);
		stop_agent(true);
		return -1;
	}
	if (pid == 0) {
		move_fd(to_keeper[0], STDIN_FILENO);
		move_fd(from_keeper[1], STDOUT_FILENO);
		child_defaults();
		setsid(); /* no terminal signals: Ctrl-C is synctop's to handle */
		execlp("ssh-agent", "ssh-agent", "-a", A.sock, "--", "/bin/sh", "-c", keeper_script, (char *)NULL);
		_exit(127);
	}
	close(to_keeper[0]);
	close(from_keeper[1]);
	A.owner = getpid();
	A.keeper = pid;
	A.keeper_fd = to_keeper[1];
	install_hooks();

	pid_t agent = read_agent_pid(from_keeper[0]);
	close(from_keeper[0]);
	if (agent > 0) {
		A.agent = agent;
		if (agent_answers(A.sock)) {
			return 0;
		}
		snprintf(err, err_len, "ssh-agent does not answer on %s", A.sock);
		stop_agent(true);
		return -1;
	}
	/* No pid: ssh-agent failed (its message is on stderr) or hangs. */
	int status;
	if (reap_within(pid, &status, STOP_WAIT_MS)) {
		A.keeper = 0;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
			snprintf(err, err_len, "cannot run ssh-agent (is openssh-client installed?)");
		} else {
			snprintf(err, err_len, "ssh-agent did not start");
		}
	} else {
		snprintf(err, err_len, "ssh-agent did not start within %d s", START_TIMEOUT_MS / 1000);
	}
	stop_agent(true);
	return -1;
}

static void remember(const char *path, const unsigned char *blob, size_t len)
{
	A.keys = xrealloc(A.keys, (A.n_keys + 1) * sizeof *A.keys);
	loaded_key *k = &A.keys[A.n_keys++];
	k->path = xstrdup(path);
	k->blob = NULL;
	k->blob_len = 0;
	if (len) {
		k->blob = xmalloc(len);
		memcpy(k->blob, blob, len);
		k->blob_len = len;
	}
}

typedef struct {
	const blob_set *before;
	unsigned char blob[BLOB_MAX];
	size_t len;
} new_blob;

static bool find_new_blob(void *ctx, const unsigned char *blob, size_t len)
{
	new_blob *nb = ctx;
	if (set_has(nb->before, blob, len) || len > sizeof nb->blob) {
		return false;
	}
	memcpy(nb->blob, blob, len);
	nb->len = len;
	return true;
}

int private_agent_add(const char *path, char *err, size_t err_len)
{
	blob_set before = {0};
	int status = 0;

	if (A.agent <= 0) {
		snprintf(err, err_len, "synctop's private ssh-agent is not running");
		return -1;
	}
	agent_each(A.sock, collect_blob, &before);
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(err, err_len, "fork: %s", strerror(errno));
		set_free(&before);
		return -1;
	}
	if (pid == 0) {
		child_defaults();
		/* synctop's stdout carries reports (--json); ssh-add talks on the
		 * terminal and stderr only. */
		dup2(STDERR_FILENO, STDOUT_FILENO);
		if (setenv("SSH_AUTH_SOCK", A.sock, 1) != 0) {
			_exit(126);
		}
		unsetenv("SSH_AGENT_PID");
		execlp("ssh-add", "ssh-add", "--", path, (char *)NULL);
		_exit(127);
	}
	if (wait_child(pid, &status) != 0) {
		snprintf(err, err_len, "lost track of ssh-add");
		set_free(&before);
		return -1;
	}
	if (WIFSIGNALED(status)) {
		snprintf(err, err_len, "ssh-add was killed by signal %d", WTERMSIG(status));
	} else if (WEXITSTATUS(status) == 127) {
		snprintf(err, err_len, "cannot run ssh-add (is openssh-client installed?)");
	} else if (WEXITSTATUS(status) != 0) {
		snprintf(err, err_len, "ssh-add did not load it: no passphrase given, or see its message above");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		set_free(&before);
		return -1;
	}

	/* Its public half: what appeared in the agent; else (the same key was
	 * already there, from another file) what the file says. */
	new_blob nb = {.before = &before};
	agent_each(A.sock, find_new_blob, &nb);
	if (!nb.len) {
		size_t len = 0;
		char *text = read_head(path, &len);
		if (text) {
			nb.len = file_public_blob(path, text, len, nb.blob, sizeof nb.blob);
			wipe_free(text, KEY_FILE_READ_MAX);
		}
	}
	remember(path, nb.blob, nb.len);
	set_free(&before);
	return 0;
}

const char *private_agent_socket(void)
{
	return A.agent > 0 ? A.sock : "";
}

int private_agent_key_matches(const char *path, const unsigned char *blob, size_t len)
{
	for (size_t i = 0; i < A.n_keys; i++) {
		if (strcmp(A.keys[i].path, path) != 0) {
			continue;
		}
		if (!A.keys[i].blob) {
			return -1;
		}
		return len == A.keys[i].blob_len && memcmp(blob, A.keys[i].blob, len) == 0;
	}
	return -1;
}

void private_agent_stop(void)
{
	if (A.owner == getpid()) {
		stop_agent(true);
	}
	for (size_t i = 0; i < A.n_keys; i++) {
		free(A.keys[i].path);
		free(A.keys[i].blob);
	}
	free(A.keys);
	A.keys = NULL;
	A.n_keys = 0;
}

/* ----------------------------------------------------------- policy */

static const char *const identity_names[] = {
	[IDENTITY_PLAIN] = "plain",
	[IDENTITY_ENCRYPTED] = "encrypted",
	[IDENTITY_IN_USER_AGENT] = "in ssh-agent",
	[IDENTITY_IN_PRIVATE_AGENT] = "in synctop's agent",
};
_Static_assert(sizeof identity_names / sizeof identity_names[0] == IDENTITY_STATE_COUNT,
	       "every identity_state needs a name");

/* The only way to change a key's state once private_agent_load() has reset
 * it; --log gets each change with its cause (a static phrase), so it tells
 * which way every identity file will be used. */
static void set_identity_state(private_agent_key *k, identity_state to, const char *reason)
{
	if (k->state == to) {
		return;
	}
	log_printf("identity %s: %s -> %s (%s)", k->path, identity_names[k->state], identity_names[to], reason);
	k->state = to;
}

static void inspect(private_agent_key *k)
{
	size_t len = 0;
	char *text = read_head(k->path, &len);

	if (!text) {
		return; /* missing: the key file stage says so */
	}
	if (private_agent_classify(text, len) == KEY_FILE_ENCRYPTED) {
		unsigned char blob[BLOB_MAX];
		size_t blob_len = file_public_blob(k->path, text, len, blob, sizeof blob);
		set_identity_state(k, IDENTITY_ENCRYPTED, "the file is encrypted");
		/* Already unlocked in the user's agent, which the transport asks
		 * first: asking again would be for nothing. */
		if (blob_len && !k->identities_only && user_agent_holds(blob, blob_len)) {
			set_identity_state(k, IDENTITY_IN_USER_AGENT, "ssh-agent holds it");
		}
	}
	wipe_free(text, KEY_FILE_READ_MAX);
}

size_t private_agent_load(private_agent_key *keys, size_t n)
{
	char err[256];
	size_t pending = 0, loaded = 0;

	for (size_t i = 0; i < n; i++) {
		keys[i].state = IDENTITY_PLAIN; /* the starting state: not looked at */
		inspect(&keys[i]);
		pending += keys[i].state == IDENTITY_ENCRYPTED;
	}
	if (!pending) {
		return 0;
	}
	if (!isatty(STDIN_FILENO)) {
		for (size_t i = 0; i < n; i++) {
			if (keys[i].state == IDENTITY_ENCRYPTED) {
				fprintf(stderr,
					"synctop: warning: %s is encrypted and there is no terminal to ask its "
					"passphrase on; load it into ssh-agent (ssh-add %s)\n",
					keys[i].path, keys[i].path);
			}
		}
		return 0;
	}
	if (private_agent_start(err, sizeof err) != 0) {
		fprintf(stderr, "synctop: warning: cannot start a private ssh-agent: %s\n", err);
		for (size_t i = 0; i < n; i++) {
			if (keys[i].state == IDENTITY_ENCRYPTED) {
				fprintf(stderr, "synctop: warning: %s is encrypted: load it into ssh-agent (ssh-add %s)\n",
					keys[i].path, keys[i].path);
			}
		}
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (keys[i].state != IDENTITY_ENCRYPTED) {
			continue;
		}
		fprintf(stderr,
			"synctop: %s is encrypted: ssh-add asks its passphrase once, for this run only "
			"(Enter skips the key; keys already in ssh-agent are not asked for)\n",
			keys[i].path);
		fflush(stderr);
		if (private_agent_add(keys[i].path, err, sizeof err) == 0) {
			set_identity_state(&keys[i], IDENTITY_IN_PRIVATE_AGENT, "passphrase given to ssh-add");
			loaded++;
		} else {
			fprintf(stderr, "synctop: warning: %s was not loaded (%s); nodes will not use it\n",
				keys[i].path, err);
		}
	}
	if (!loaded) {
		private_agent_stop();
	}
	return loaded;
}
