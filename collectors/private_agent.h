/* private_agent.h - encrypted identity files, and the private ssh-agent that
 * holds them for one run of synctop.
 *
 * libssh2 cannot keep a decrypted key: with a key file it re-derives the key
 * (bcrypt_pbkdf, ~200 ms of CPU) on every authentication, on the loop thread,
 * and it cannot ask for a passphrase at all.  So at start-up, before the event
 * loop and before any TUI, synctop starts its own ssh-agent on a socket in a
 * fresh 0700 directory and runs ssh-add on the terminal for each encrypted
 * file the nodes will use: ssh-add asks the passphrase and decrypts once, and
 * from then on the agent signs.  synctop itself never reads a passphrase.
 *
 * The agent is stopped at exit, on the error paths and on SIGINT, SIGTERM,
 * SIGHUP and SIGQUIT; if synctop dies some other way (SIGKILL, a crash), the
 * agent sees its parent go and exits within 10 s. */
#ifndef SYNCTOP_PRIVATE_AGENT_H
#define SYNCTOP_PRIVATE_AGENT_H

#include <stdbool.h>
#include <stddef.h>

/* What a key file's text says about its protection. */
typedef enum {
	KEY_FILE_UNKNOWN,   /* not a private key format recognised here */
	KEY_FILE_PLAIN,
	KEY_FILE_ENCRYPTED,
} key_file_protection;

/* How one identity file will be used (ssh_options.identity_states). */
typedef enum {
	IDENTITY_PLAIN = 0,        /* not encrypted, or not looked at: libssh2 reads the file */
	IDENTITY_ENCRYPTED,        /* encrypted, and no agent holds it: unusable this run */
	IDENTITY_IN_USER_AGENT,    /* encrypted; the user's own ssh-agent holds it */
	IDENTITY_IN_PRIVATE_AGENT, /* encrypted; loaded into synctop's private agent */
	IDENTITY_STATE_COUNT,      /* not a state: how many there are */
} identity_state;

/* Pure.  OpenSSH format ("openssh-key-v1": encrypted unless its cipher is
 * "none"), legacy PEM ("Proc-Type: 4,ENCRYPTED") and PKCS#8 ("BEGIN
 * ENCRYPTED PRIVATE KEY").  Reads at most len bytes; any input is safe. */
key_file_protection private_agent_classify(const char *text, size_t len);

/* Pure.  The public key blob an OpenSSH-format private key keeps in the clear
 * (encrypted or not).  Returns its length, or 0 when there is none or it is
 * longer than cap. */
size_t private_agent_key_public_blob(const char *text, size_t len, unsigned char *blob, size_t cap);

/* Pure.  The blob of a public key line as in a .pub file ("TYPE BASE64
 * [COMMENT]"); 0 when the line is not one or the blob is longer than cap. */
size_t private_agent_pub_line_blob(const char *text, size_t len, unsigned char *blob, size_t cap);

/* One distinct identity file, for private_agent_load(). */
typedef struct {
	const char *path;
	bool identities_only;  /* a node using it will not ask the user's agent */
	identity_state state;  /* out; each change is logged to --log */
} private_agent_key;

/* Looks at each file; for the encrypted ones that the user's agent does not
 * already hold, and only when stdin is a terminal, starts the private agent
 * and runs ssh-add on the terminal for each (Enter at the prompt skips a key).
 * Without a terminal it warns, naming each file and saying to ssh-add it.
 * Messages go to stderr; they name files, never anything secret.  Call before
 * the event loop and any TUI.  Returns how many keys the private agent holds;
 * when none, no agent is left running. */
size_t private_agent_load(private_agent_key *keys, size_t n);

/* The steps of private_agent_load, for tests.  start: 0, or -1 with err. */
int private_agent_start(char *err, size_t err_len);
/* ssh-add PATH into the running private agent, with the terminal attached.
 * 0 when added, else -1 with err saying why. */
int private_agent_add(const char *path, char *err, size_t err_len);

/* The private agent's socket path, "" when none is running. */
const char *private_agent_socket(void);

/* Is this the public key of `path`, a file private_agent_add() loaded?
 * 1 yes, 0 no, -1 not known (a key whose public half could not be read). */
int private_agent_key_matches(const char *path, const unsigned char *blob, size_t len);

/* Stops the agent, waits (up to 1 s) until it no longer answers, and removes
 * its directory.  Safe to call more than once, and when none was started. */
void private_agent_stop(void);

#endif
