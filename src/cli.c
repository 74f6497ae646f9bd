/* cli.c - parse and validate the command line. */
#include <config.h>

#include "cli.h"
#include "ssh_jump_spec.h"

#include <ctype.h>
#include <curl/curl.h>
#include <getopt.h>
#include <jansson.h>
#include <libssh2.h>
#include <math.h>
#include <ncurses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yajl/yajl_version.h>

#include <ev.h>

#include "command_template.h"
#include "exit_codes.h"
#include "hostlist.h"
#include "known_hosts.h"
#include "xalloc.h"

enum {
	OPT_ONCE = 256,
	OPT_JSON,
	OPT_CHECK,
	OPT_FAIL_ON,
	OPT_FOR,
	OPT_TIMEOUT,
	OPT_LOCAL,
	OPT_DEMO,
	OPT_IFACE,
	OPT_PMC_SUDO,
	OPT_MAX_HANDSHAKES,
	OPT_KNOWN_HOSTS,
	OPT_STRICT,
	OPT_CONNECT_TIMEOUT,
	OPT_VERSION,
	OPT_THEME,
	OPT_NO_COLOR,
	OPT_NO_MOUSE,
	OPT_LOG,
	OPT_CONFIG,
	OPT_CLOCK_CHECK,
	OPT_PROMETHEUS,
	OPT_FROM_PROMETHEUS,
	OPT_PROM_SELECTOR,
	OPT_PROM_NODE_LABEL,
	OPT_PROM_CA,
	OPT_PROM_BEARER,
	OPT_PROM_BASIC,
	OPT_PROM_STALE,
	OPT_EVENTS,
	OPT_HOSTLIST_ONLY,
	OPT_TRANSPORT,
	OPT_TRANSPORT_CMD,
	OPT_JUMP_CHANNELS,
	OPT_PERIOD,
	OPT_STATE_DIR,
	OPT_STATE,
	OPT_SSH_DETAIL,
};

static const struct option long_options[] = {
	{"once", no_argument, NULL, OPT_ONCE},
	{"json", no_argument, NULL, OPT_JSON},
	{"check", no_argument, NULL, OPT_CHECK},
	{"fail-on", required_argument, NULL, OPT_FAIL_ON},
	{"for", required_argument, NULL, OPT_FOR},
	{"verbose", no_argument, NULL, 'v'},
	{"hostlist-only", no_argument, NULL, OPT_HOSTLIST_ONLY},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"interval", required_argument, NULL, 'd'},
	{"hostlist", required_argument, NULL, 'w'},
	{"hostfile", required_argument, NULL, 'f'},
	{"local", no_argument, NULL, OPT_LOCAL},
	{"demo", no_argument, NULL, OPT_DEMO},
	{"config", required_argument, NULL, OPT_CONFIG},
	{"ssh-config", required_argument, NULL, 'F'},
	{"user", required_argument, NULL, 'l'},
	{"port", required_argument, NULL, 'p'},
	{"identity", required_argument, NULL, 'i'},
	{"jump", required_argument, NULL, 'J'},
	{"jump-channels", required_argument, NULL, OPT_JUMP_CHANNELS},
	{"known-hosts", required_argument, NULL, OPT_KNOWN_HOSTS},
	{"strict-host-key-checking", required_argument, NULL, OPT_STRICT},
	{"connect-timeout", required_argument, NULL, OPT_CONNECT_TIMEOUT},
	{"max-handshakes", required_argument, NULL, OPT_MAX_HANDSHAKES},
	{"transport", required_argument, NULL, OPT_TRANSPORT},
	{"transport-cmd", required_argument, NULL, OPT_TRANSPORT_CMD},
	{"iface", required_argument, NULL, OPT_IFACE},
	{"sudo", no_argument, NULL, OPT_PMC_SUDO},
	{"pmc-sudo", no_argument, NULL, OPT_PMC_SUDO}, /* the old name of --sudo */
	{"theme", required_argument, NULL, OPT_THEME},
	{"no-color", no_argument, NULL, OPT_NO_COLOR},
	{"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
	{"log", required_argument, NULL, OPT_LOG},
	{"clock-check", required_argument, NULL, OPT_CLOCK_CHECK},
	{"prometheus", required_argument, NULL, OPT_PROMETHEUS},
	{"events", required_argument, NULL, OPT_EVENTS},
	{"state-dir", required_argument, NULL, OPT_STATE_DIR},
	{"state", no_argument, NULL, OPT_STATE},
	{"from-prometheus", required_argument, NULL, OPT_FROM_PROMETHEUS},
	{"prometheus-selector", required_argument, NULL, OPT_PROM_SELECTOR},
	{"prometheus-node-label", required_argument, NULL, OPT_PROM_NODE_LABEL},
	{"prometheus-ca", required_argument, NULL, OPT_PROM_CA},
	{"prometheus-bearer-token-file", required_argument, NULL, OPT_PROM_BEARER},
	{"prometheus-basic-auth-file", required_argument, NULL, OPT_PROM_BASIC},
	{"prometheus-stale", required_argument, NULL, OPT_PROM_STALE},
	{"ssh-detail", required_argument, NULL, OPT_SSH_DETAIL},
	{"period", required_argument, NULL, OPT_PERIOD},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, OPT_VERSION},
	{NULL, 0, NULL, 0},
};

static void usage(FILE *f)
{
	fputs("Usage: synctop [OPTIONS] [[user@]host[:port] ...]\n"
	      "Watch clock synchronisation (chrony, linuxptp, NIC timestamping) across a cluster.\n"
	      "\n"
	      "Modes:\n"
	      "  (default)              live view, refreshed every interval\n"
	      "  --once                 poll every node once and print a table\n"
	      "  --once --json          poll once, print one JSON document\n"
	      "  --check                poll once, print problems; exit 0 ok, 1 warn, 2 crit, 3 unknown\n"
	      "      --fail-on LEVEL    warn (default) or crit: the lowest severity that fails --check\n"
	      "      --for SEC          --check: poll for SEC seconds; fail only on problems that lasted\n"
	      "  -v, --verbose          --check: print the fix for every problem\n"
	      "      --hostlist-only    --check: print only the failing nodes as one host list\n"
	      "                         (gpu[003,017-018]; nothing when all are ok), same exit code\n"
	      "\n"
	      "Nodes:\n"
	      "  -w, --hostlist LIST    hostlist expression, e.g. gpu[001-128],login1 (repeatable)\n"
	      "  -f, --hostfile FILE    one host or hostlist per line, # comments (repeatable)\n"
	      "      --local            also poll this machine directly, without SSH\n"
	      "      --demo             watch a simulated 50-node cluster instead (no SSH, no nodes)\n"
	      "      --config FILE      JSON thresholds and probe settings per group of nodes (doc/config.md)\n"
	      "\n"
	      "SSH (as in ssh(1); command line beats ssh config):\n"
	      "  -F, --ssh-config FILE  ssh client config (default ~/.ssh/config, /etc/ssh/ssh_config)\n"
	      "  -l, --user USER        login name\n"
	      "  -p, --port PORT        port\n"
	      "  -i, --identity FILE    private key file (repeatable); ssh-agent is tried first\n"
	      "  -J, --jump [user@]host[:port][,...]  reach every node through these jump hosts\n"
	      "                         (beats ProxyJump in the ssh config; \"none\": directly)\n"
	      "      --jump-channels N  nodes one jump host connection carries before another\n"
	      "                         opens (default 128)\n"
	      "      --known-hosts FILE known_hosts file to use instead of the defaults (repeatable)\n"
	      "      --strict-host-key-checking yes|accept-new|no   (default yes)\n"
	      "      --connect-timeout SEC  connect + authenticate deadline (default 10)\n"
	      "      --max-handshakes N     SSH handshakes in flight at once (default 64)\n"
	      "      --transport libssh2|ssh  built-in SSH client (default), or the system ssh client\n"
	      "                         (one process per node: ProxyCommand, Kerberos, certificates)\n"
	      "      --transport-cmd 'CMD {host} ...'  reach each node with this command instead,\n"
	      "                         e.g. 'docker exec -i {host} sh' (no shell: quotes only)\n"
	      "\n"
	      "Polling:\n"
	      "  -d, --interval SEC     seconds between polls of a node (default 2)\n"
	      "      --timeout SEC      --once/--check: overall deadline; live: per-poll deadline (default 10)\n"
	      "      --iface IFACE      interface for ethtool -T (default: ptp4l's, else the default route's)\n"
	      "      --sudo             run pmc and phc_ctl through sudo -n (root-only ptp4l socket,\n"
	      "                         /dev/ptp*); --pmc-sudo is the old name\n"
	      "      --clock-check SEC  measure each node's clock against this machine's at most every\n"
	      "                         SEC seconds, 0 = never (default 30; --once/--check: once)\n"
	      "      --period TOOL=SEC  run a periodic tool every SEC seconds, keeping its last answer\n"
	      "                         between runs (ntpq 60, selectdata 60, ethtool 300; repeatable)\n"
	      "      --prometheus FILE  after every sweep, write a node_exporter textfile (atomically)\n"
	      "      --events FILE      live: append every event (what changed, when) as a JSON line\n"
	      "      --state-dir DIR    live: keep history and events in DIR/synctop.db (SQLite) and\n"
	      "                         bring them back at the next start (7 days, at most 1 GiB)\n"
	      "      --state            the same in $XDG_STATE_HOME/synctop (~/.local/state/synctop)\n"
	      "\n"
	      "Reading from Prometheus (instead of SSH; hosts, -w and -f then filter the nodes):\n"
	      "      --from-prometheus URL  a Prometheus server's base URL (repeatable); -d default 15\n"
	      "      --prometheus-selector '{job=\"node\"}'  label matchers added to every query\n"
	      "      --prometheus-node-label LABEL  name nodes by LABEL (nodename: node_uname_info's)\n"
	      "      --prometheus-ca FILE           CA bundle for https\n"
	      "      --prometheus-bearer-token-file FILE  send the token on FILE's first line\n"
	      "      --prometheus-basic-auth-file FILE    user:password on FILE's first line\n"
	      "      --prometheus-stale SEC  samples older than this make a node unknown (default 120)\n"
	      "      --ssh-detail HOSTLIST  also poll these nodes once over SSH (same name, the SSH\n"
	      "                         options above) for their full detail: --once --json adds it\n"
	      "                         as \"ssh_detail\"; live, their drill-down shows it (S: any node)\n"
	      "\n"
	      "Live view (on a terminal; plain text when stdout is not one):\n"
	      "      --theme NAME|FILE  colour theme: default, light, high-contrast, mono, or a .json file\n"
	      "      --no-color         no colours (as does NO_COLOR in the environment)\n"
	      "      --no-mouse         leave the mouse to the terminal\n"
	      "\n"
	      "      --log FILE         append a timestamped debug log (connections, polls, errors)\n"
	      "  -h, --help             this help\n"
	      "      --version          version and library versions\n",
	      f);
}

static void version(void)
{
	printf("synctop %s\n", PACKAGE_VERSION);
	printf("  libssh2 %s (built with %s)\n", libssh2_version(0) ? libssh2_version(0) : "?",
	       LIBSSH2_BUILD_VERSION);
	printf("  %s\n", curses_version());
	printf("  jansson %s\n", jansson_version_str());
	printf("  yajl %d.%d.%d\n", yajl_version() / 10000, yajl_version() / 100 % 100, yajl_version() % 100);
	printf("  libev %d.%d\n", ev_version_major(), ev_version_minor());
	printf("  %s\n", curl_version());
}

static int parse_seconds(const char *opt, const char *arg, double min, double max, double *out)
{
	char *end = NULL;
	double v = strtod(arg, &end);
	if (end == arg || *end != '\0' || !isfinite(v) || v < min || v > max) {
		fprintf(stderr, "synctop: %s: '%s' is not a number of seconds between %g and %g\n", opt, arg,
			min, max);
		return -1;
	}
	*out = v;
	return 0;
}

static int parse_int(const char *opt, const char *arg, long min, long max, int *out)
{
	char *end = NULL;
	long v = strtol(arg, &end, 10);
	if (end == arg || *end != '\0' || v < min || v > max) {
		fprintf(stderr, "synctop: %s: '%s' is not a whole number between %ld and %ld\n", opt, arg, min,
			max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static void push(char ***list, size_t *n, const char *value)
{
	*list = xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = xstrdup(value);
}

static bool valid_iface(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 15) {
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isalnum((unsigned char)s[i]) && !strchr("_.:-", s[i])) {
			return false;
		}
	}
	return true;
}

int cli_parse(int argc, char **argv, cli_options *opt)
{
	bool once = false, check = false, interval_given = false;
	int c;

	memset(opt, 0, sizeof *opt);
	opt->fail_on = SEVERITY_WARN;
	opt->strict = -1;
	opt->transport = -1;
	opt->interval_s = 2.0;
	opt->timeout_s = 10.0;
	opt->clock_check_s = 30.0;
	opt->max_handshakes = 64;
	opt->prom_selector = "";
	opt->prom_stale_s = 120.0;

	optind = 1;
	while ((c = getopt_long(argc, argv, "hvd:w:f:F:l:p:i:J:", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_ONCE:
			once = true;
			break;
		case OPT_JSON:
			opt->json = true;
			break;
		case OPT_CHECK:
			check = true;
			break;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "warn") == 0) {
				opt->fail_on = SEVERITY_WARN;
			} else if (strcmp(optarg, "crit") == 0) {
				opt->fail_on = SEVERITY_CRIT;
			} else {
				fprintf(stderr, "synctop: --fail-on: expected warn or crit, got '%s'\n", optarg);
				return EX_USAGE;
			}
			break;
		case OPT_FOR:
			if (parse_seconds("--for", optarg, 0.1, 86400, &opt->check_for_s) != 0) {
				return EX_USAGE;
			}
			break;
		case 'v':
			opt->verbose = true;
			break;
		case OPT_HOSTLIST_ONLY:
			opt->hostlist_only = true;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds("--timeout", optarg, 0.1, 3600, &opt->timeout_s) != 0) {
				return EX_USAGE;
			}
			break;
		case 'd':
			if (parse_seconds("--interval", optarg, 0.1, 86400, &opt->interval_s) != 0) {
				return EX_USAGE;
			}
			interval_given = true;
			opt->interval_given = true;
			break;
		case OPT_CLOCK_CHECK:
			if (parse_seconds("--clock-check", optarg, 0, 86400, &opt->clock_check_s) != 0) {
				return EX_USAGE;
			}
			break;
		case OPT_PROMETHEUS:
			if (!*optarg) {
				fputs("synctop: --prometheus: expected a file name\n", stderr);
				return EX_USAGE;
			}
			opt->prometheus_file = optarg;
			break;
		case OPT_EVENTS:
			if (!*optarg) {
				fputs("synctop: --events: expected a file name\n", stderr);
				return EX_USAGE;
			}
			opt->events_file = optarg;
			break;
		case OPT_STATE_DIR:
			if (!*optarg) {
				fputs("synctop: --state-dir: expected a directory\n", stderr);
				return EX_USAGE;
			}
			opt->state_dir = optarg;
			break;
		case OPT_STATE:
			opt->state_default = true;
			break;
		case OPT_FROM_PROMETHEUS:
			if (!*optarg) {
				fputs("synctop: --from-prometheus: expected a URL\n", stderr);
				return EX_USAGE;
			}
			push(&opt->prom_urls, &opt->n_prom_urls, optarg);
			break;
		case OPT_PROM_SELECTOR:
			opt->prom_selector = optarg;
			break;
		case OPT_PROM_NODE_LABEL:
			if (!*optarg || strspn(optarg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") !=
						strlen(optarg)) {
				fprintf(stderr, "synctop: --prometheus-node-label: '%s' is not a label name\n", optarg);
				return EX_USAGE;
			}
			opt->prom_node_label = optarg;
			break;
		case OPT_PROM_CA:
			opt->prom_ca = optarg;
			break;
		case OPT_PROM_BEARER:
			opt->prom_bearer_token_file = optarg;
			break;
		case OPT_PROM_BASIC:
			opt->prom_basic_auth_file = optarg;
			break;
		case OPT_PERIOD: {
			char why[256];
			if (collector_period_parse(optarg, &opt->periods, why, sizeof why) != 0) {
				fprintf(stderr, "synctop: --period: %s\n", why);
				return EX_USAGE;
			}
			break;
		}
		case OPT_SSH_DETAIL: {
			char why[256];
			if (!*optarg || hostlist_expand(optarg, NULL, NULL, why, sizeof why) != 0) {
				fprintf(stderr, "synctop: --ssh-detail: '%s' is not a host list: %s\n", optarg,
					*optarg ? why : "empty");
				return EX_USAGE;
			}
			opt->ssh_detail = optarg;
			break;
		}
		case OPT_PROM_STALE:
			if (parse_seconds("--prometheus-stale", optarg, 1, 86400, &opt->prom_stale_s) != 0) {
				return EX_USAGE;
			}
			break;
		case 'w':
			push(&opt->hostlists, &opt->n_hostlists, optarg);
			break;
		case 'f':
			push(&opt->host_files, &opt->n_host_files, optarg);
			break;
		case OPT_LOCAL:
			opt->local = true;
			break;
		case OPT_DEMO:
			opt->demo = true;
			break;
		case OPT_CONFIG:
			if (!*optarg) {
				fputs("synctop: --config: expected a file name\n", stderr);
				return EX_USAGE;
			}
			opt->config = optarg;
			break;
		case 'F':
			opt->ssh_config = optarg;
			break;
		case 'l':
			if (!*optarg || strlen(optarg) >= 64 || strpbrk(optarg, " \t\n@:")) {
				fprintf(stderr, "synctop: -l: '%s' is not a valid user name\n", optarg);
				return EX_USAGE;
			}
			opt->user = optarg;
			break;
		case 'p':
			if (parse_int("-p", optarg, 1, 65535, &opt->port) != 0) {
				return EX_USAGE;
			}
			break;
		case 'i':
			if (opt->n_identities == CLI_MAX_IDENTITIES) {
				fprintf(stderr, "synctop: -i: at most %d identity files\n", CLI_MAX_IDENTITIES);
				return EX_USAGE;
			}
			opt->identities[opt->n_identities++] = optarg;
			break;
		case OPT_KNOWN_HOSTS:
			if (opt->n_known_hosts == CLI_MAX_KNOWN_HOSTS) {
				fprintf(stderr, "synctop: --known-hosts: at most %d files\n", CLI_MAX_KNOWN_HOSTS);
				return EX_USAGE;
			}
			opt->known_hosts[opt->n_known_hosts++] = optarg;
			break;
		case OPT_STRICT:
			if (strcasecmp(optarg, "yes") == 0) {
				opt->strict = KNOWN_HOSTS_STRICT_YES;
			} else if (strcasecmp(optarg, "accept-new") == 0) {
				opt->strict = KNOWN_HOSTS_STRICT_ACCEPT_NEW;
			} else if (strcasecmp(optarg, "no") == 0) {
				opt->strict = KNOWN_HOSTS_STRICT_NO;
			} else {
				fprintf(stderr, "synctop: --strict-host-key-checking: expected yes, accept-new or no, "
						"got '%s'\n", optarg);
				return EX_USAGE;
			}
			break;
		case OPT_CONNECT_TIMEOUT:
			if (parse_seconds("--connect-timeout", optarg, 0.1, 3600, &opt->connect_timeout_s) != 0) {
				return EX_USAGE;
			}
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "libssh2") == 0) {
				opt->transport = NODE_TRANSPORT_LIBSSH2;
			} else if (strcmp(optarg, "ssh") == 0) {
				opt->transport = NODE_TRANSPORT_SSH;
			} else {
				fprintf(stderr, "synctop: --transport: expected libssh2 or ssh, got '%s' (a command "
						"goes in --transport-cmd)\n", optarg);
				return EX_USAGE;
			}
			break;
		case OPT_TRANSPORT_CMD: {
			command_template t;
			char why[160];
			if (strlen(optarg) >= NODE_SETTINGS_TRANSPORT_CMD_LEN) {
				fprintf(stderr, "synctop: --transport-cmd: longer than %d bytes\n",
					NODE_SETTINGS_TRANSPORT_CMD_LEN - 1);
				return EX_USAGE;
			}
			if (command_template_split(optarg, &t, why, sizeof why) != 0) {
				fprintf(stderr, "synctop: --transport-cmd: %s (words are split at spaces; only "
						"'single' and \"double\" quotes are special)\n", why);
				return EX_USAGE;
			}
			size_t hosts = command_template_host_count(&t);
			command_template_free(&t);
			if (hosts == 0) {
				fputs("synctop: --transport-cmd: the command has no {host}: every node would run the "
				      "same command\n", stderr);
				return EX_USAGE;
			}
			opt->transport_cmd = optarg;
			break;
		}
		case 'J': {
			ssh_jump_spec js;
			char why[384];
			if (opt->jump) {
				fprintf(stderr, "synctop: -J: only one -J (separate jump hosts with commas)\n");
				return EX_USAGE;
			}
			if (ssh_jump_spec_parse(optarg, &js, why, sizeof why) != 0) {
				fprintf(stderr, "synctop: -J: %s\n", why);
				return EX_USAGE;
			}
			opt->jump = optarg;
			break;
		}
		case OPT_JUMP_CHANNELS:
			if (parse_int("--jump-channels", optarg, 1, 100000, &opt->jump_channels) != 0) {
				return EX_USAGE;
			}
			break;
		case OPT_MAX_HANDSHAKES:
			if (parse_int("--max-handshakes", optarg, 1, 100000, &opt->max_handshakes) != 0) {
				return EX_USAGE;
			}
			break;
		case OPT_IFACE:
			if (!valid_iface(optarg)) {
				fprintf(stderr, "synctop: --iface: '%s' is not an interface name "
						"(1-15 of A-Z a-z 0-9 _ . : -)\n", optarg);
				return EX_USAGE;
			}
			opt->iface = optarg;
			break;
		case OPT_PMC_SUDO:
			opt->pmc_sudo = true;
			break;
		case OPT_THEME:
			if (!*optarg) {
				fputs("synctop: --theme: expected a theme name or a .json file\n", stderr);
				return EX_USAGE;
			}
			opt->theme = optarg;
			break;
		case OPT_NO_COLOR:
			opt->no_color = true;
			break;
		case OPT_NO_MOUSE:
			opt->no_mouse = true;
			break;
		case OPT_LOG:
			opt->log_file = optarg;
			break;
		case 'h':
			usage(stdout);
			return EXIT_SUCCESS;
		case OPT_VERSION:
			version();
			return EXIT_SUCCESS;
		default:
			fputs("Try 'synctop --help' for more information.\n", stderr);
			return EX_USAGE;
		}
	}
	for (int i = optind; i < argc; i++) {
		push(&opt->hosts, &opt->n_hosts, argv[i]);
	}

	if (check && once) {
		/* --check already polls once; accept the redundant flag */
		once = false;
	}
	if (check) {
		if (opt->json) {
			fputs("synctop: --check and --json are separate modes; use --once --json for JSON\n", stderr);
			return EX_USAGE;
		}
		opt->mode = MODE_CHECK;
	} else if (opt->check_for_s > 0) {
		fputs("synctop: --for goes with --check (the live view waits each finding's own `for`)\n", stderr);
		return EX_USAGE;
	} else if (once) {
		opt->mode = opt->json ? MODE_ONCE_JSON : MODE_ONCE_TEXT;
	} else if (opt->json) {
		fputs("synctop: --json needs --once\n", stderr);
		return EX_USAGE;
	}
	if (opt->events_file && opt->mode != MODE_LIVE) {
		/* one poll has nothing to compare with */
		fputs("synctop: --events records changes while synctop runs; not with --once or --check\n", stderr);
		return EX_USAGE;
	}
	if (opt->state_dir && opt->state_default) {
		fputs("synctop: --state-dir DIR and --state: one or the other\n", stderr);
		return EX_USAGE;
	}
	if (opt->hostlist_only && !check) {
		fputs("synctop: --hostlist-only needs --check\n", stderr);
		return EX_USAGE;
	}
	if (opt->transport_cmd && opt->transport >= 0) {
		fputs("synctop: --transport and --transport-cmd: one or the other (--transport-cmd runs its own "
		      "command instead of any SSH client)\n", stderr);
		return EX_USAGE;
	}
	if (opt->ssh_detail && (opt->mode == MODE_CHECK || opt->mode == MODE_ONCE_TEXT)) {
		/* the table and the check have no place for a second source */
		fputs("synctop: --ssh-detail shows in --once --json and in the live view's drill-down\n", stderr);
		return EX_USAGE;
	}
	if (opt->n_prom_urls) {
		if (opt->demo || opt->local) {
			fputs("synctop: --from-prometheus reads its nodes from Prometheus; no --demo or --local with it\n",
			      stderr);
			return EX_USAGE;
		}
		if (opt->prom_bearer_token_file && opt->prom_basic_auth_file) {
			fputs("synctop: --prometheus-bearer-token-file and --prometheus-basic-auth-file: one or the other\n",
			      stderr);
			return EX_USAGE;
		}
		if (!interval_given) {
			opt->interval_s = 15.0; /* a scrape interval, not an SSH poll's */
		}
		if (opt->check_for_s > 0) {
			fputs("synctop: --check --for polls the nodes itself; with --from-prometheus use your "
			      "alerting rules' own `for:`\n", stderr);
			return EX_USAGE;
		}
		return CLI_CONTINUE;
	}
	if (opt->ssh_detail && !opt->config) {
		/* with --config, its groups may name Prometheus servers: main asks */
		fputs("synctop: --ssh-detail polls nodes read from Prometheus over SSH: it goes with "
		      "--from-prometheus (an SSH run shows every node's detail already)\n", stderr);
		return EX_USAGE;
	}
	if (opt->prom_selector[0] || opt->prom_node_label || opt->prom_ca || opt->prom_bearer_token_file ||
	    opt->prom_basic_auth_file) {
		fputs("synctop: the --prometheus-* options other than --prometheus go with --from-prometheus\n", stderr);
		return EX_USAGE;
	}
	if (opt->demo && (opt->n_hosts || opt->n_hostlists || opt->n_host_files || opt->local)) {
		fputs("synctop: --demo simulates its own nodes; give no hosts, -w, -f or --local with it\n", stderr);
		return EX_USAGE;
	}
	if (cli_no_nodes(opt) && !opt->config) {
		/* with --config, its groups may name Prometheus servers: main asks */
		fputs("synctop: no nodes given (hosts as arguments, -w HOSTLIST, -f FILE or --local)\n"
		      "Try 'synctop --help' for more information.\n", stderr);
		return EX_USAGE;
	}
	return CLI_CONTINUE;
}

bool cli_no_nodes(const cli_options *opt)
{
	return !opt->demo && !opt->n_hosts && !opt->n_hostlists && !opt->n_host_files && !opt->local &&
	       !opt->n_prom_urls;
}

void cli_free(cli_options *opt)
{
	for (size_t i = 0; i < opt->n_hosts; i++) {
		free(opt->hosts[i]);
	}
	for (size_t i = 0; i < opt->n_hostlists; i++) {
		free(opt->hostlists[i]);
	}
	for (size_t i = 0; i < opt->n_host_files; i++) {
		free(opt->host_files[i]);
	}
	for (size_t i = 0; i < opt->n_prom_urls; i++) {
		free(opt->prom_urls[i]);
	}
	free(opt->prom_urls);
	free(opt->hosts);
	free(opt->hostlists);
	free(opt->host_files);
}
