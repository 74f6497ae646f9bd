/* cli.h - command-line options, parsed and validated before anything starts. */
#ifndef SYNCTOP_CLI_H
#define SYNCTOP_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "collector_period.h"
#include "finding.h"
#include "node_settings.h"

#define CLI_MAX_IDENTITIES 8
#define CLI_MAX_KNOWN_HOSTS 4

typedef enum {
	MODE_LIVE = 0,  /* TUI on a terminal, plain text table otherwise */
	MODE_ONCE_JSON, /* --once --json */
	MODE_ONCE_TEXT, /* --once: one plain table */
	MODE_CHECK,     /* --check */
} cli_mode;

typedef struct {
	cli_mode mode;
	bool json;
	bool verbose;
	severity fail_on;
	double check_for_s;      /* --check --for SEC: 0 = judge one poll */
	bool hostlist_only;  /* --check: print only the failing nodes' host list */

	/* inventory: positional hosts, -w lists, -f files (kept in order) */
	char **hosts;
	size_t n_hosts;
	char **hostlists;
	size_t n_hostlists;
	char **host_files;
	size_t n_host_files;
	bool local;              /* --local: poll this machine without SSH */
	bool demo;               /* --demo: the simulated cluster instead of any node */
	const char *config;      /* --config FILE: per-node settings; NULL = none */

	/* ssh */
	const char *ssh_config;  /* -F; NULL = ~/.ssh/config then /etc/ssh/ssh_config */
	const char *user;        /* -l */
	int port;                /* -p; 0 = unset */
	const char *identities[CLI_MAX_IDENTITIES];
	int n_identities;
	const char *jump;        /* -J: jump hosts for every node (beats ProxyJump); NULL = none */
	int jump_channels;       /* --jump-channels: nodes per jump connection; 0 = default */
	const char *known_hosts[CLI_MAX_KNOWN_HOSTS];
	int n_known_hosts;
	int strict;              /* -1 unset, else a known_hosts_policy */
	double connect_timeout_s; /* 0 = unset */
	int max_handshakes;
	int transport;           /* -1 unset, else a node_transport (not CMD) */
	const char *transport_cmd; /* --transport-cmd TEMPLATE (checked); NULL = none */

	/* polling */
	double interval_s;
	bool interval_given;      /* -d was given (a --config "prometheus" group then keeps it) */
	double clock_check_s;     /* --clock-check: 0 = never */
	const char *prometheus_file; /* --prometheus, NULL = none */
	const char *events_file;     /* --events: live, every event as a JSON line; NULL = none */
	const char *state_dir;       /* --state-dir DIR: live history kept across runs; NULL = none */
	bool state_default;          /* --state: the same in the default directory (state_store.h) */
	double timeout_s;        /* --once/--check overall, and per poll */
	const char *iface;
	bool pmc_sudo;
	collector_periods periods; /* --period TOOL=SEC (repeatable); 0 = the tool's own */

	/* live view (TUI) */
	const char *theme;       /* --theme NAME|FILE; NULL = default */
	bool no_color;           /* --no-color */
	bool no_mouse;           /* --no-mouse */
	const char *log_file;    /* --log: debug log, NULL = none */

	/* --from-prometheus: read the nodes from Prometheus servers instead of
	 * SSH (sources/prometheus_source.h); hosts, -w and -f then filter */
	char **prom_urls;
	size_t n_prom_urls;
	const char *prom_selector;   /* "" or "{matchers}" */
	const char *prom_node_label; /* NULL: per family; "nodename": join node_uname_info */
	const char *prom_ca;         /* --prometheus-ca FILE */
	const char *prom_bearer_token_file;
	const char *prom_basic_auth_file;
	double prom_stale_s;         /* --prometheus-stale */
	/* --ssh-detail HOSTLIST: these Prometheus nodes are also polled once
	 * over SSH (src/ssh_detail_run.h); NULL = none */
	const char *ssh_detail;
} cli_options;

#define CLI_CONTINUE (-1)

/* Parses argv into opt.  Returns CLI_CONTINUE to go on, or an exit status to
 * exit with immediately (0 after --help / --version, EX_USAGE after a usage
 * error, with the message already printed on stderr). */
int cli_parse(int argc, char **argv, cli_options *opt);
/* Nothing names a node: no hosts, -w, -f, --local, --demo or
 * --from-prometheus (a --config group's "prometheus" still may). */
bool cli_no_nodes(const cli_options *opt);

void cli_free(cli_options *opt);

#endif
