/* observation.h - what one poll of one node tells us, part by part.
 *
 * Each part (chrony, PTP, NIC, daemons) carries its own state, so a node whose
 * chronyd is down can still show a healthy PTP port.  Absent values are
 * "unknown", never 0: doubles are NAN, integers use the *_UNKNOWN sentinels.
 *
 * Sign convention everywhere in synctop: an offset is
 *     node clock minus reference   (positive = the node is ahead).
 * Each parser documents how it maps its tool's convention onto this.
 *
 * Everything here is fixed-size so a node's memory stays small and constant.
 */
#ifndef SYNCTOP_OBSERVATION_H
#define SYNCTOP_OBSERVATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define INT_UNKNOWN INT32_MIN
#define OBS_ERROR_LEN 160

/* Why a part of an observation holds no data.  OBS_OK is the only state
 * whose fields mean anything. */
typedef enum {
	OBS_NOT_COLLECTED = 0, /* not asked for in this poll (or never polled) */
	OBS_OK,
	OBS_TOOL_MISSING,       /* command not found (exit 127) */
	OBS_DAEMON_UNREACHABLE, /* 506 Cannot talk to daemon, no pmc response, ... */
	OBS_PERMISSION_DENIED,  /* e.g. the ptp4l socket is root-only */
	OBS_NO_DEVICE,          /* ethtool: no such interface */
	OBS_EMPTY,              /* the tool printed nothing */
	OBS_TRUNCATED,          /* output ended mid-record */
	OBS_GARBAGE,            /* output we could not parse */
	OBS_COMMAND_FAILED,     /* any other non-zero exit */
	OBS_NOT_SUPPORTED,      /* the tool answered but cannot do this */
} obs_state;

const char *obs_state_name(obs_state state);

/* The part says nothing at all: not asked for in this poll, or its tool is
 * not installed (as opposed to a tool that failed). */
bool obs_state_absent(obs_state state);

/* ------------------------------------------------------------------ chrony */

typedef enum {
	CHRONY_LEAP_UNKNOWN = 0,
	CHRONY_LEAP_NORMAL,
	CHRONY_LEAP_INSERT,
	CHRONY_LEAP_DELETE,
	CHRONY_LEAP_UNSYNC,
} chrony_leap;

/* The text chrony prints for a leap status ("Normal", "Insert second",
 * "Delete second", "Not synchronised"); "unknown" for CHRONY_LEAP_UNKNOWN. */
const char *chrony_leap_name(chrony_leap leap);

typedef struct {
	uint32_t reference_id;       /* valid when has_reference_id */
	bool has_reference_id;
	char reference_name[64];     /* "" when chrony gives none */
	int stratum;                 /* INT_UNKNOWN if absent */
	double ref_time;             /* unix seconds of last update, NAN if absent */
	double system_time_offset_s; /* node - reference (chrony's "slow" = negative) */
	double last_offset_s;        /* node - reference at last update */
	double rms_offset_s;
	double frequency_ppm;        /* positive = the uncorrected clock runs fast */
	double residual_frequency_ppm;
	double skew_ppm;
	double root_delay_s;
	double root_dispersion_s;
	double update_interval_s;
	chrony_leap leap;
} chrony_tracking;

typedef enum {
	CHRONY_MODE_UNKNOWN = 0,
	CHRONY_MODE_SERVER, /* '^' */
	CHRONY_MODE_PEER,   /* '=' */
	CHRONY_MODE_REFCLOCK, /* '#' */
} chrony_source_mode;

typedef enum {
	CHRONY_STATE_UNKNOWN = 0,
	CHRONY_STATE_SELECTED,     /* '*' */
	CHRONY_STATE_COMBINED,     /* '+' */
	CHRONY_STATE_NOT_COMBINED, /* '-' */
	CHRONY_STATE_FALSETICKER,  /* 'x' */
	CHRONY_STATE_JITTERY,      /* '~' */
	CHRONY_STATE_UNUSABLE,     /* '?' */
} chrony_source_state;

typedef struct {
	chrony_source_mode mode;
	chrony_source_state state;
	char name[64];
	int stratum;
	int poll;              /* log2 seconds */
	unsigned reach;        /* the reach register, 0..0377 (octal as printed) */
	int64_t last_rx_s;     /* seconds since last sample; -1 if never (chrony: 4294967295) */
	double adjusted_offset_s; /* node - source */
	double measured_offset_s; /* node - source */
	double error_s;
} chrony_source;

typedef struct {
	char name[64];
	int samples;
	int runs;
	int span_s;
	double frequency_ppm;
	double skew_ppm;
	double offset_s;       /* node - source */
	double std_dev_s;
} chrony_sourcestat;

#define CHRONY_MAX_SOURCES 16

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];  /* human reason when state != OBS_OK */
	chrony_tracking tracking;
	int n_sources;              /* entries stored below */
	int n_sources_total;        /* entries chrony reported (may exceed the array) */
	chrony_source sources[CHRONY_MAX_SOURCES];
	int n_sourcestats;
	chrony_sourcestat sourcestats[CHRONY_MAX_SOURCES];
} chrony_obs;

/* Which tracking values mean something now.  With leap status "Not
 * synchronised" chronyd has no reference: chrony's REF_GetTrackingReport
 * (reference.c) fills the reference fields only while synchronised and
 * otherwise reports placeholders (reference ID 0, stratum 0, 1 s root delay
 * and dispersion, 0 residual frequency and skew).  The values measured
 * against the reference are then unknown: system_time_offset_s, stratum,
 * reference_id, reference_name, root_delay_s, root_dispersion_s,
 * residual_frequency_ppm and skew_ppm.  last_offset_s and rms_offset_s
 * (history) and frequency_ppm (the correction in use) keep chrony's values.
 * True when the tracking record has a reference. */
bool chrony_tracking_has_reference(const chrony_tracking *t);

/* Applies that rule to a parsed record: without a reference, the values
 * above become unknown.  The chrony collector applies it to what the parser
 * read (the parser itself reports what chronyc printed), so every output and
 * every rule sees one answer (JSON null, Prometheus omitted, grid '-'). */
void chrony_tracking_settle(chrony_tracking *t);

/* chronyc(1) Reference ID 7F7F0101: the `local` directive's own clock. */
#define CHRONY_REFID_LOCAL 0x7F7F0101u

/* chronyd serves its own free-running clock (`local`), not a source's. */
bool chrony_tracking_is_local(const chrony_tracking *t);

/* The source chronyd has selected ('*'), or NULL. */
const chrony_source *chrony_selected_source(const chrony_obs *c);

/* Why chronyd uses each source or not: `chronyc -c selectdata` (chrony >=
 * 4.0), one record per source.  The state letters are chronyc's
 * (chronyc(1) "selectdata"); chrony_select_state_reason says each in words. */
enum {
	CHRONY_SELECT_OPT_NOSELECT = 1 << 0, /* N */
	CHRONY_SELECT_OPT_PREFER = 1 << 1,   /* P */
	CHRONY_SELECT_OPT_TRUST = 1 << 2,    /* T */
	CHRONY_SELECT_OPT_REQUIRE = 1 << 3,  /* R */
};

typedef struct {
	char state;              /* '*', '+', 'x', 's', 'N', 'M', 'd', 'D', '~', 'w', 'W', 'S', 'O', 'T', 'P', 'U' */
	char name[64];
	bool authenticated;
	unsigned conf_options;   /* CHRONY_SELECT_OPT_*, as configured */
	unsigned eff_options;    /* ... and in effect */
	int64_t last_sample_ago_s;
	double score;
	double interval_lo_s;    /* the source's offset interval: node - source */
	double interval_hi_s;
	chrony_leap leap;
} chrony_select_source;

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	int n_sources;           /* entries stored below */
	int n_sources_total;     /* records chronyc printed */
	chrony_select_source sources[CHRONY_MAX_SOURCES];
} chrony_selection;

void chrony_selection_init(chrony_selection *sel);

/* Why chronyd does (not) use a source with this selectdata state, in a few
 * words ("a falseticker: its interval disagrees with the majority"); NULL
 * for a letter chrony does not print. */
const char *chrony_select_state_reason(char state);

/* --------------------------------------------------------------------- PTP */

typedef enum {
	PTP_PORT_UNKNOWN = 0,
	PTP_PORT_INITIALIZING,
	PTP_PORT_FAULTY,
	PTP_PORT_DISABLED,
	PTP_PORT_LISTENING,
	PTP_PORT_PRE_MASTER,
	PTP_PORT_MASTER,
	PTP_PORT_PASSIVE,
	PTP_PORT_UNCALIBRATED,
	PTP_PORT_SLAVE,
	PTP_PORT_GRAND_MASTER,
} ptp_port_state;

const char *ptp_port_state_name(ptp_port_state state);

#define PTP_ID_LEN 32  /* "1aed80.fffe.1a0b51-1" fits */
#define PTP_MAX_PORTS 4

/* A port's Sync and Announce bookkeeping (collectors/pmc_sync.h): its
 * Announce settings (PORT_DATA_SET), message counts (PORT_STATS_NP, linuxptp
 * >= 2.0), timeout counts (PORT_SERVICE_STATS_NP, linuxptp >= 4.0 only) and
 * how long its rx Sync count has stood still (across polls). */
#define PTP_COUNT_UNKNOWN (-1)

typedef struct {
	int log_announce_interval;    /* INT_UNKNOWN if unknown */
	int announce_receipt_timeout; /* in announce intervals; INT_UNKNOWN */
	int64_t rx_sync, rx_follow_up, rx_delay_resp, rx_announce; /* PTP_COUNT_UNKNOWN */
	int64_t tx_sync, tx_delay_req, tx_announce;
	int64_t announce_timeouts, sync_timeouts; /* PTP_COUNT_UNKNOWN before linuxptp 4.0 */
	/* Client time (observation.taken_at) of the first poll that saw rx_sync
	 * at its present value: set by comparing with the node's previous
	 * observation (pmc_sync_compare); NAN when unknown. */
	double rx_sync_since;
	/* Announce and Sync receipt timeouts counted since the previous poll
	 * (PORT_SERVICE_STATS_NP); PTP_COUNT_UNKNOWN. */
	int64_t timeouts_new;
} ptp_port_sync;

void ptp_port_sync_init(ptp_port_sync *s);

typedef struct {
	char port_identity[PTP_ID_LEN]; /* clockid-portnumber */
	int port_number;
	ptp_port_state state;
	int64_t peer_mean_path_delay_ns; /* INT64_MIN if unknown */
	int log_sync_interval;           /* INT_UNKNOWN if unknown */
	int delay_mechanism;             /* 1 E2E, 2 P2P; INT_UNKNOWN if unknown */
	char interface[32];              /* from PORT_PROPERTIES_NP, "" if unknown */
	char timestamping[16];           /* HARDWARE / SOFTWARE / ..., "" if unknown */
	ptp_port_sync sync;
} ptp_port;

#define PTP_NS_UNKNOWN INT64_MIN

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];

	/* DEFAULT_DATA_SET */
	char clock_identity[PTP_ID_LEN];
	int domain_number;
	int slave_only;      /* 0/1, INT_UNKNOWN */
	int number_ports;
	int priority1, priority2, clock_class;

	/* TIME_STATUS_NP */
	int64_t master_offset_ns;
	int gm_present;      /* 0/1, INT_UNKNOWN */
	char gm_identity[PTP_ID_LEN];

	/* CURRENT_DATA_SET; offsetFromMaster is slave - master = node - reference */
	int steps_removed;
	int64_t offset_from_master_ns;
	int64_t mean_path_delay_ns;

	/* PARENT_DATA_SET */
	char parent_port_identity[PTP_ID_LEN];
	char grandmaster_identity[PTP_ID_LEN];
	int gm_priority1, gm_priority2, gm_clock_class;
	int gm_clock_accuracy;             /* 0..0xFF, IEEE 1588 clockAccuracy enum */
	int gm_offset_scaled_log_variance; /* 0..0xFFFF */

	/* TIME_PROPERTIES_DATA_SET */
	int current_utc_offset;
	int current_utc_offset_valid;
	int leap61, leap59;
	int ptp_timescale;
	int time_traceable, frequency_traceable;
	int time_source;

	int n_ports;
	ptp_port ports[PTP_MAX_PORTS];
	int foreign_responses; /* answer blocks from other clocks, ignored (pmc_parse.h) */

	/* TIME_STATUS_NP ingress_time: when the last Sync arrived, in ns of
	 * the clock ptp4l timestamps with (CLOCK_REALTIME under software
	 * timestamping, the PHC under hardware); 0 when none arrived since
	 * ptp4l started, stepped the clock or changed grandmaster (clock.c);
	 * PTP_NS_UNKNOWN when not answered. */
	int64_t ingress_time_ns;
	/* The node's CLOCK_REALTIME in ns, read just before pmc ran and just
	 * after it exited (pmc.c's command); PTP_NS_UNKNOWN if not read. */
	int64_t realtime_before_ns, realtime_after_ns;
} ptp_obs;

/* One ptp4l of several on a node (one per NIC, each with its own
 * uds_address, as OpenShift's linuxptp-daemon and timemaster run them),
 * found by the pmc collector from ptp4l's command line (pmc_instances.h). */
#define PTP_MAX_INSTANCES 4
#define PTP_PATH_LEN 108 /* sun_path of a Unix socket address */

typedef struct {
	char socket[PTP_PATH_LEN];          /* the uds_address pmc asked; "" = pmc's default */
	char config[PTP_PATH_LEN];          /* ptp4l's -f file, "" without one */
	/* Why the config could not be read ("" when it was): then nobody
	 * knows the socket and pmc did not run (ptp.state OBS_NOT_COLLECTED). */
	char config_error[OBS_ERROR_LEN];
	ptp_obs ptp;                        /* its data sets, as the single ptp4l's are parsed */
} ptp_instance;

/* n_ports clamped to the ports held (0..PTP_MAX_PORTS). */
int ptp_port_count(const ptp_obs *p);

/* The port the node follows a master on: SLAVE, else UNCALIBRATED (the servo
 * still locking); NULL when none, or when pmc did not answer.  ptp4l keeps
 * the last offsetFromMaster, master offset and meanPathDelay after its port
 * stops following (LISTENING, FAULTY, ...): those values are current only
 * while this returns a port. */
const ptp_port *ptp_following_port(const ptp_obs *p);

/* The port that says how this clock is doing, for every output: the one
 * following a master (as ptp_following_port), else the first FAULTY,
 * LISTENING, MASTER, GRAND_MASTER, PRE_MASTER or PASSIVE port, else the
 * first; NULL when pmc did not answer or reported no port. */
const ptp_port *ptp_primary_port(const ptp_obs *p);

/* A SLAVE port: its servo has locked, so its offset says how well the node
 * keeps PTP time (an UNCALIBRATED port is still converging); NULL if none. */
const ptp_port *ptp_locked_port(const ptp_obs *p);

/* What a clockClass says about the clock that announces it: IEEE 1588-2008
 * clause 7.6.2.4 Table 5 (the default profile; IEEE 1588-2019 keeps these
 * values) and, for the telecom profiles' 135..165 inside 1588's "alternate
 * profile" range, ITU-T G.8275.1 clause 6.4 Table 2 (G.8275.2 uses the same
 * values).  The two tables never give one number two meanings. */
typedef enum {
	PTP_CLASS_UNKNOWN = 0,  /* INT_UNKNOWN, or not 0..255 */
	PTP_CLASS_LOCKED,       /* 6, 13: locked to its reference */
	PTP_CLASS_HOLDOVER,     /* 7, 14, 135: lost it, holdover within specification */
	PTP_CLASS_DEGRADED,     /* 52, 58, 187, 193, 140, 150, 160, 165: holdover out of specification */
	PTP_CLASS_FREE_RUNNING, /* 248: the default, no reference at all */
	PTP_CLASS_SLAVE_ONLY,   /* 255 */
	PTP_CLASS_PROFILE,      /* 68..122, 133..170, 216..232 not named above */
	PTP_CLASS_RESERVED,     /* every other value */
} ptp_class_kind;

ptp_class_kind ptp_clock_class_kind(int cls);

/* The class in words ("locked to a primary reference (PRTC, e.g. GNSS)",
 * "free-running default: no reference at all", ...); "unknown" for
 * INT_UNKNOWN.  For the finding, the drill-down and the header alike. */
const char *ptp_clock_class_meaning(int cls);

/* IEEE 1588-2008 Table 6 clockAccuracy ("within 100 ns", "unknown"); NULL
 * for a value the table does not define. */
const char *ptp_clock_accuracy_name(int acc);

/* IEEE 1588-2008 Table 7 timeSource ("GPS", "NTP", "INTERNAL_OSCILLATOR",
 * ...); NULL for a value the table does not define. */
const char *ptp_time_source_name(int src);

/* --------------------------------------------------------------------- NIC */

enum {
	NIC_CAP_HW_TX = 1 << 0,
	NIC_CAP_HW_RX = 1 << 1,
	NIC_CAP_HW_RAW_CLOCK = 1 << 2,
	NIC_CAP_SW_TX = 1 << 3,
	NIC_CAP_SW_RX = 1 << 4,
	NIC_CAP_SW_SYSTEM_CLOCK = 1 << 5,
};

#define NIC_PHC_NONE (-1)
#define NIC_PHC_UNKNOWN (-2)

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	char interface[32];
	unsigned caps;         /* NIC_CAP_* bits */
	int phc_index;         /* >= 0, NIC_PHC_NONE or NIC_PHC_UNKNOWN */
	char tx_modes[96];     /* "off on" etc., space separated; "" when none */
	char rx_filters[160];
} nic_obs;

/* Interfaces ethtool checks on one node: one per ptp4l port, as many as the
 * ports kept (a boundary clock has several). */
#define NIC_MAX PTP_MAX_PORTS

/* ----------------------------------------------------------------- daemons */

enum {
	DAEMON_CHRONYD = 1 << 0,
	DAEMON_NTPD = 1 << 1,
	DAEMON_TIMESYNCD = 1 << 2,
	DAEMON_PTP4L = 1 << 3,
	DAEMON_PHC2SYS = 1 << 4,
};

/* Each DAEMON_* bit's process, at procs[daemon_index(bit)]. */
#define DAEMON_KINDS 5

typedef struct {
	int count;           /* processes of this daemon seen */
	int pid;             /* the youngest one's; 0 when ps gave no pid */
	int64_t age_s;       /* its age, ps etimes (the node's boot-time clock:
			      * no clock step moves it); -1 unknown */
	/* Set by the daemons collector from the previous poll (carry), kept in
	 * the node from poll to poll: client time of the poll that found the
	 * daemon restarted (younger than it was at the previous poll, or
	 * another PID), NAN when never seen restarting since it has been
	 * watched; restarted_now: that poll is this one. */
	double restarted_at;
	bool restarted_now;
	int previous_pid;    /* restarted_now: the PID before */
} daemon_proc;

/* How a phc2sys command line says it runs (phc2sys(8); linuxptp 3.1 and 4.x
 * share these options): -s SOURCE -c SINK (default CLOCK_REALTIME), -a
 * (follow ptp4l's ports) with -r (also steer CLOCK_REALTIME), -E ntpshm
 * (feed chronyd/ntpd an SHM segment instead of steering). */
#define DAEMONS_MAX_PHC2SYS 2

typedef struct {
	char source[32];   /* -s (or -i, 3.1's old name): "" when not given */
	char sink[32];     /* -c: "" when not given (phc2sys then steers CLOCK_REALTIME) */
	bool automatic;    /* -a */
	int realtime;      /* how many -r (1: steer CLOCK_REALTIME, 2: also a source) */
	bool ntpshm;       /* -E ntpshm */
	bool config_file;  /* -f: settings may come from a file we do not read */
	/* -z (or --uds_address): the ptp4l socket -a follows; "" = ptp4l's
	 * default (/var/run/ptp4l) */
	char uds[PTP_PATH_LEN];
} phc2sys_args;

/* Where a time daemon's process runs and whether it may set the clock, from
 * /proc/PID/cgroup, the CapEff line of /proc/PID/status and /proc/PID/uid_map,
 * read by the daemons collector in the same call as ps
 * (collectors/container_parse.h; the cgroup patterns: docs/checks.md). */
typedef enum {
	CONTAINER_NONE = 0, /* the host's own cgroups: system.slice, user.slice, / */
	CONTAINER_KUBEPODS, /* a Kubernetes pod (kubelet's kubepods tree), any runtime */
	CONTAINER_DOCKER,
	CONTAINER_CONTAINERD,
	CONTAINER_CRIO,
	CONTAINER_LIBPOD,   /* podman */
	CONTAINER_LXC,
} container_kind;

typedef enum {
	CAN_SET_TIME_UNKNOWN = 0, /* /proc/PID/status or uid_map unreadable (gone, hidepid) */
	CAN_SET_TIME_NO,
	CAN_SET_TIME_YES,         /* CAP_SYS_TIME effective, in the initial user namespace */
} can_set_time;

#define DAEMONS_MAX_PLACES 8

typedef struct {
	int pid;
	unsigned bit;              /* DAEMON_* of its comm */
	int64_t age_s;             /* ps etimes */
	bool cgroup_read;          /* some /proc/PID/cgroup line came back */
	/* The path that says where it runs: the container's where one matched,
	 * else the unified (0::) path, else name=systemd's, else any not "/"
	 * (printable, cut to fit). */
	char cgroup[256];
	container_kind container;  /* CONTAINER_KUBEPODS for any pod */
	container_kind runtime;    /* the runtime its scope names (a pod's too), or NONE */
	can_set_time can_set;
} daemon_place;

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	unsigned running; /* DAEMON_* bits */
	daemon_proc procs[DAEMON_KINDS];
	/* phc2sys command lines (`ps -C phc2sys -o comm=,args=`, asked only
	 * when phc2sys runs): n_phc2sys stored, more are not kept. */
	int n_phc2sys;
	phc2sys_args phc2sys[DAEMONS_MAX_PHC2SYS];
	char phc2sys_cmdline[DAEMONS_MAX_PHC2SYS][96]; /* printable, cut to fit */
	/* Every time daemon's process with a PID (ps order), up to
	 * DAEMONS_MAX_PLACES, and where each runs (more are counted, not kept). */
	int n_places;
	int n_places_total;
	daemon_place places[DAEMONS_MAX_PLACES];
} daemons_obs;

/* The index of a DAEMON_* bit in daemons_obs.procs (its position), and its
 * process name ("chronyd", ..., "systemd-timesyncd"). */
int daemon_index(unsigned bit);
const char *daemon_name(unsigned bit);

void daemons_obs_init(daemons_obs *d);

/* "kubepods", "docker", "containerd", "cri-o", "libpod", "lxc"; "host" for
 * CONTAINER_NONE.  And "yes", "no", "unknown". */
const char *container_kind_name(container_kind k);
const char *can_set_time_name(can_set_time c);

/* ------------------------------------------------------ systemd-timesyncd */

/* systemd-timesyncd, an SNTP client (one server at a time), as timedatectl
 * reports it: `show` (the kernel's synchronised flag as timedated reads
 * it), `show-timesync --all` (the last NTP message) and `timesync-status`
 * (the offset and delay it computed from that message). */
typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	int ntp_enabled;          /* NTP=yes: timedated will run a sync service; 0/1/INT_UNKNOWN */
	int kernel_synchronised;  /* NTPSynchronized: the kernel's STA_UNSYNC clear; 0/1/INT_UNKNOWN */
	char server_name[64];     /* as configured ("" when none) */
	char server_address[64];
	double poll_interval_s;
	int64_t packet_count;     /* answers received from this server; -1 unknown */
	bool ignored;             /* the last answer was a spike timesyncd ignored */
	int leap;                 /* the NTP leap indicator 0..3; INT_UNKNOWN */
	int stratum;
	int precision;            /* log2 seconds */
	char reference[16];       /* refid: 4 letters at stratum 1, else hex */
	double root_delay_s;
	double root_dispersion_s;
	double offset_s;          /* node - server, from the last answer */
	double delay_s;           /* round trip of the last answer */
	double jitter_s;
	double frequency_ppm;     /* the kernel frequency correction timesyncd set */
} timesyncd_obs;

void timesyncd_obs_init(timesyncd_obs *t);

/* The NTP leap indicator 3: the server (or timesyncd itself) is not
 * synchronised. */
#define NTP_LEAP_UNSYNC 3

/* Which values mean something now: only after an answer from a
 * synchronised server (packet count > 0, leap indicator not 3) do the
 * server's stratum, reference, root delay and dispersion and the offset,
 * delay and jitter describe a reference.  True then. */
bool timesyncd_has_reference(const timesyncd_obs *t);

/* Applies that rule to a parsed record: without a reference those values
 * become unknown (timedatectl still prints the last message's numbers). */
void timesyncd_settle(timesyncd_obs *t);

/* ------------------------------------------------------- PHC vs system */

/* `phc_ctl -q IFACE get cmp` (collectors/phc_ctl.c) on the PHC of the
 * interface ptp4l uses: the PHC's own time and CLOCK_REALTIME - PHC.
 * Where the system clock is meant to follow that PHC (system_clock.h),
 * phc_sys_offset_ns() turns it into the system clock's offset. */
typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	char interface[32];             /* what phc_ctl was asked about; "" if unknown */
	/* CLOCK_REALTIME - PHC, as the PTP_SYS_OFFSET ioctls measure it (the
	 * parser has turned linuxptp < 4.0's inverted fallback around);
	 * PTP_NS_UNKNOWN when unknown. */
	int64_t realtime_minus_phc_ns;
	bool approximate;               /* phc_ctl's "approximately" fallback (no PTP_SYS_OFFSET ioctl) */
	int64_t phc_time_ns;            /* the PHC's own time (get), ns since its epoch; PTP_NS_UNKNOWN */
	char version[16];               /* phc_ctl -v, asked only for the fallback; "" otherwise */
	/* System - PHC on the UTC timescale as another program reported it,
	 * read from Prometheus where no phc_ctl ran (sources/prometheus_map.c):
	 * phc2sys's own "CLOCK_REALTIME phc offset" through linuxptp-daemon, or
	 * synctop's exported value; PTP_NS_UNKNOWN otherwise.  by_phc2sys: it
	 * is phc2sys's, which reports it only while it steers CLOCK_REALTIME
	 * from that PHC. */
	int64_t reported_sys_minus_phc_ns;
	bool reported_by_phc2sys;
} phc_obs;

void phc_obs_init(phc_obs *phc);

/* ------------------------------------------------- independent clock check */

/* The node's clock read over the already-open session and compared with the
 * client's own: several exchanges of (client time before, node's
 * `date +%s.%N`, client time after); the one with the smallest round trip is
 * kept.  offset = node - client midpoint; the true offset lies within
 * +-uncertainty of it (half that round trip), as far as the client's clock
 * is right: the client is the reference. */
#define CLOCK_CHECK_EXCHANGES 4

typedef struct {
	obs_state state;          /* OBS_OK once at least one exchange succeeded */
	char error[OBS_ERROR_LEN];
	int exchanges;            /* exchanges that returned a node time */
	double offset_s;          /* node - client, NAN if unknown */
	double uncertainty_s;     /* half the best exchange's round trip, NAN if unknown */
	double measured_at;       /* client unix time of the best exchange, NAN if unknown */
} clock_check_obs;

void clock_check_obs_init(clock_check_obs *cc);

/* -------------------------------------------------------------------- ntpd */

/* ntpd (ntpsec, or classic ntp 4.2.8) through `ntpq -n -c rv -c peers`
 * (collectors/ntpq.c).  ntpq prints milliseconds and ppm; the model holds
 * seconds and ppm.  Offsets follow synctop's sign (node minus reference):
 * ntpq's own offsets are the server's offset relative to this host, so the
 * parser negates them (ntpq_parse.h). */
#define NTP_MAX_PEERS 16
#define NTP_LEAP_UNSYNC 3 /* leap=11: "alarm", the clock is not synchronised */

typedef struct {
	char tally;        /* ntpq's tally code: ' ' rejected, 'x' falseticker, '.' excess,
			    * '-' outlier, '+' candidate, '#' backup, '*' system peer, 'o' PPS peer */
	char remote[64];   /* as ntpq prints it (numeric with -n; at most 15 characters) */
	char refid[40];
	int stratum;       /* INT_UNKNOWN if absent */
	char type;         /* 'u' unicast, 'l' local refclock, 'p' pool, 'b', 's', ...; '?' unknown */
	int when_s;        /* seconds since the last packet; INT_UNKNOWN for "-" (never) */
	int poll_s;        /* poll interval, seconds */
	unsigned reach;    /* the reach register, 0..0377 */
	double delay_s;
	double offset_s;   /* node - peer */
	double jitter_s;
} ntp_peer;

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	/* The section ran this poll (the part is periodic): a poll that did
	 * not ask keeps the last answer, one that found no ntpd does not. */
	bool ran;
	/* Client time (taken_at) of the poll whose answer this is, when it
	 * came from an earlier poll (carried); NAN when this poll's own or
	 * unknown (collectors/ntpq.c: the answer's age). */
	double answered_at;
	char version[64];      /* "ntpd ntpsec-1.2.2", "ntpd 4.2.8p15@1.3728-o ...", "" */
	int status;            /* the system status word (16 bits); INT_UNKNOWN */
	int leap;              /* 0 none, 1 insert, 2 delete, NTP_LEAP_UNSYNC; INT_UNKNOWN */
	int stratum;
	char refid[40];        /* "" when unknown */
	double offset_s;       /* node - reference (ntpq's offset negated) */
	double sys_jitter_s;
	double clk_jitter_s;
	double clk_wander_ppm;
	double frequency_ppm;  /* ntpd's frequency correction, as ntpq prints it */
	double root_delay_s;
	double root_dispersion_s;
	int tc;                /* clock discipline time constant (log2 s); INT_UNKNOWN */
	int n_peers;           /* entries stored below */
	int n_peers_total;     /* rows ntpq printed (may exceed the array) */
	ntp_peer peers[NTP_MAX_PEERS];
} ntp_obs;

void ntp_obs_init(ntp_obs *ntp);

/* Which system values mean something now.  With leap 11 ntpd has no
 * reference: ntpd (ntpsec 1.2.2, tests/fixtures/ntpq-n-rv-peers-unsync-start.txt)
 * reports its startup
 * placeholders: stratum 16, refid INIT, offset 0, sys_jitter 0, root delay 0.
 * The values measured against the reference are then unknown: offset_s,
 * stratum, refid, sys_jitter_s, root_delay_s, root_dispersion_s.
 * frequency_ppm (the correction in use, from the drift file), clk_jitter_s,
 * clk_wander_ppm, tc and the peers keep ntpq's values.  True when ntpd has
 * a reference. */
bool ntp_has_reference(const ntp_obs *n);

/* Applies that rule to a parsed answer (the collector's decode does, so
 * every output sees one answer). */
void ntp_obs_settle(ntp_obs *n);

/* The system peer ('*', or 'o' for a PPS peer), or NULL. */
const ntp_peer *ntp_system_peer(const ntp_obs *n);

/* n_peers clamped to 0..NTP_MAX_PEERS. */
int ntp_peer_count(const ntp_obs *n);

/* ------------------------------------------------------------ kernel clock */

/* The kernel's clock discipline as adjtimex(2) reports it (struct timex and
 * its return value).  Nothing on a node reads it over SSH yet: the
 * Prometheus source fills it from node_exporter's timex collector
 * (node_exporter collector/timex.go, whose conversions are noted below). */
enum {
	KERNEL_STA_PLL = 0x0001,      /* the kernel PLL is on (ntpd's kernel discipline) */
	KERNEL_STA_PPSFREQ = 0x0002,
	KERNEL_STA_PPSTIME = 0x0004,
	KERNEL_STA_FLL = 0x0008,
	KERNEL_STA_INS = 0x0010,      /* insert a leap second at the end of the UTC day */
	KERNEL_STA_DEL = 0x0020,      /* delete a leap second at the end of the UTC day */
	KERNEL_STA_UNSYNC = 0x0040,   /* the clock is not synchronised */
	KERNEL_STA_FREQHOLD = 0x0080,
	KERNEL_STA_PPSSIGNAL = 0x0100,
	KERNEL_STA_PPSJITTER = 0x0200,
	KERNEL_STA_PPSWANDER = 0x0400,
	KERNEL_STA_PPSERROR = 0x0800,
	KERNEL_STA_CLOCKERR = 0x1000,
	KERNEL_STA_NANO = 0x2000,
	KERNEL_STA_MODE = 0x4000,
	KERNEL_STA_CLK = 0x8000,
};

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	/* adjtimex's return value is not TIME_ERROR (5): node_timex_sync_status.
	 * 0/1, INT_UNKNOWN. */
	int synchronised;
	int status;              /* the STA_* bits (node_timex_status); INT_UNKNOWN */
	/* node - reference: the kernel PLL's remaining phase correction is
	 * reference - node (ntpd hands the kernel the offset to add), so this is
	 * minus node_timex_offset_seconds.  NAN if unknown. */
	double offset_s;
	double max_error_s;      /* maxerror: bound on the error, grows 500 ppm while nobody updates it */
	double est_error_s;      /* esterror, as the time daemon set it */
	/* The frequency correction the kernel applies, in ppm: positive = the
	 * kernel speeds the clock up.  node_timex_frequency_adjustment_ratio is
	 * 1 + freq / 2^16 / 10^6, so this is (ratio - 1) * 10^6. */
	double freq_adjust_ppm;
	int time_constant;       /* PLL time constant (log2); INT_UNKNOWN */
	double tick_s;           /* seconds between clock ticks, NAN if unknown */
	int tai_offset_s;        /* TAI - UTC as the kernel knows it; 0 when never set; INT_UNKNOWN */
} kernel_clock_obs;

void kernel_clock_obs_init(kernel_clock_obs *k);

/* Which kernel values mean something now.  While the clock is marked
 * unsynchronised (STA_UNSYNC set, or adjtimex returned TIME_ERROR) the
 * kernel's maxerror has run up to its 16 s cap and esterror is whatever
 * was last set: both are unknown then.  The PLL's offset is the phase
 * correction it still has to apply, which says how far the clock is off
 * only while the kernel PLL disciplines the clock (STA_PLL, ntpd's kernel
 * mode) and the clock is synchronised: chronyd steers the clock without the
 * PLL and leaves that offset near 0 whatever the real error.  Otherwise it
 * is unknown.  Status bits, the frequency correction and the TAI offset
 * keep their values.  True when the clock is marked synchronised. */
bool kernel_clock_synchronised(const kernel_clock_obs *k);

/* Applies that rule to values as node_exporter reported them. */
void kernel_clock_settle(kernel_clock_obs *k);

/* --------------------------------------------------------------- openntpd */

/* openntpd (also a process called ntpd, without ntpq's mode 6 interface)
 * through `ntpctl -s all` (collectors/ntpctl.c): the status line and the
 * peers.  ntpctl prints milliseconds; the model holds seconds.  Offsets
 * follow synctop's sign (node minus reference): ntpctl's are the server's
 * offset from this host, negated by the parser (ntpctl_parse.h). */
#define OPENNTPD_MAX_PEERS 16
/* A peer is valid (answers used) from this trust level on (openntpd
 * ntpd.h TRUSTLEVEL_BADPEER); it climbs to 10 one good reply at a time. */
#define OPENNTPD_TRUSTLEVEL_BADPEER 6

typedef struct {
	char address[64];     /* the peer's first word (its address) */
	char description[64]; /* what follows: "from pool NAME", "(NAME)"; "" when none */
	bool selected;        /* '*': the peer the clock is synced to */
	int weight;
	int trust_level;      /* 0..10 */
	int stratum;          /* INT_UNKNOWN for "-" (no answer yet) */
	int next_s;           /* seconds to its next query */
	int poll_s;
	bool valid;           /* trust level >= OPENNTPD_TRUSTLEVEL_BADPEER: the numbers below exist */
	double offset_s;      /* node - peer; NAN when not valid */
	double delay_s;
	double jitter_s;
} openntpd_peer;

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	int synced;            /* "clock synced": 1, "clock unsynced": 0; INT_UNKNOWN */
	int stratum;           /* "stratum N" when synced; INT_UNKNOWN */
	/* "clock unsynced, clock offset is X ms": the correction adjtime still
	 * has to apply, node - reference (negated); NAN when not printed. */
	double unsynced_offset_s;
	int peers_valid, peers_configured;     /* "V/N peers valid"; 0/0 when not printed */
	int sensors_valid, sensors_configured; /* "V/N sensors valid" */
	bool constraints_configured;           /* a constraint line was printed */
	bool constraint_known;                 /* "constraint offset Ns" */
	int64_t constraint_offset_s;           /* HTTPS constraint median minus the clock */
	int constraint_errors;
	int n_peers;           /* entries stored below */
	int n_peers_total;     /* peers ntpctl printed (may exceed the array) */
	openntpd_peer peers[OPENNTPD_MAX_PEERS];
	int n_sensors;         /* sensors printed (not stored) */
	bool sensor_selected;  /* a sensor is marked '*': the clock follows it */
} openntpd_obs;

void openntpd_obs_init(openntpd_obs *o);

/* openntpd says the clock is synced.  The offset and stratum mean
 * something only then. */
bool openntpd_synced(const openntpd_obs *o);

/* The peer marked '*', or NULL. */
const openntpd_peer *openntpd_selected_peer(const openntpd_obs *o);

/* n_peers clamped to 0..OPENNTPD_MAX_PEERS. */
int openntpd_peer_count(const openntpd_obs *o);

/* What chronyd knows of each NTP source's packets: `chronyc -c ntpdata`
 * (collectors/chrony_ntpdata.c), one record per NTP source (refclocks have
 * none).  How each packet was timestamped is chronyc's %N: the daemon's own
 * clock reading, the kernel's (SO_TIMESTAMPING software) or the NIC's. */
typedef enum {
	CHRONY_TS_UNKNOWN = 0,  /* not read */
	CHRONY_TS_INVALID,      /* "Invalid": no packet yet */
	CHRONY_TS_DAEMON,       /* "Daemon" */
	CHRONY_TS_KERNEL,       /* "Kernel" */
	CHRONY_TS_HARDWARE,     /* "Hardware" */
} chrony_ts_source;

#define CHRONY_COUNT_UNKNOWN (-1) /* a packet counter this chrony does not print */

typedef struct {
	char remote[64];          /* address as chronyc -c prints it */
	char local[64];           /* "[UNSPEC]" before any answer */
	int remote_port;
	chrony_leap leap;
	int version;              /* 0 before any answer */
	char mode[20];            /* "Server", "Symmetric active", "Symmetric passive", "Invalid" */
	int stratum;
	int poll;                 /* log2 seconds */
	double root_delay_s;
	double root_dispersion_s;
	double offset_s;          /* node - source (chronyc prints source - node) */
	double peer_delay_s;
	double response_time_s;
	bool interleaved;
	bool authenticated;
	chrony_ts_source tx_ts;
	chrony_ts_source rx_ts;
	int64_t total_tx, total_rx, total_valid_rx;
	int64_t total_good_rx;    /* chrony >= 4.0, else CHRONY_COUNT_UNKNOWN */
	int64_t kernel_tx, kernel_rx, hw_tx, hw_rx; /* chrony >= 4.6, else CHRONY_COUNT_UNKNOWN */
} chrony_ntp_source;

typedef struct {
	obs_state state;
	char error[OBS_ERROR_LEN];
	int n_sources;            /* entries stored below */
	int n_sources_total;      /* records chronyc printed */
	chrony_ntp_source sources[CHRONY_MAX_SOURCES];
} chrony_ntpdata;

void chrony_ntpdata_init(chrony_ntpdata *nd);

/* chronyc's word for a timestamping source ("Hardware", ...); "?" unknown. */
const char *chrony_ts_name(chrony_ts_source ts);

/* The ntpdata record of chronyd's selected source ('*' in `sources`), or
 * NULL (no selection, no record of it, or ntpdata not answered). */
const chrony_ntp_source *chrony_ntpdata_selected(const chrony_obs *c, const chrony_ntpdata *nd);

/* -------------------------------------------------------------- the whole */

typedef struct {
	double taken_at;   /* client CLOCK_REALTIME when the answer was complete */
	double rtt_s;      /* request sent -> answer complete; NAN if unknown */
	double node_time;  /* node's own clock (date +%s.%N), NAN if unknown */
	chrony_obs chrony;
	chrony_selection selection;
	ptp_obs ptp;
	/* Every ptp4l found on the node, when its command line had to be read
	 * to reach them (several, or one on a socket of its own, or one whose
	 * config could not be read); 0 when pmc asked the default socket only.
	 * ptp is then a copy of ptp_instances[ptp_primary]: the instance with
	 * a SLAVE port, else one following a master, else the first that
	 * answered, else the first (pmc_instances_primary). */
	int n_ptp_instances;
	int ptp_primary;
	ptp_instance ptp_instances[PTP_MAX_INSTANCES];
	/* The primary PTP interface's (ptp_primary_port's interface), else the
	 * first checked; on its own when no interface could be checked
	 * (observation_settle_nic keeps it so). */
	nic_obs nic;
	int n_nics;               /* interfaces ethtool checked, 0..NIC_MAX */
	nic_obs nics[NIC_MAX];    /* each of them, in the order asked */
	daemons_obs daemons;
	timesyncd_obs timesyncd;
	phc_obs phc;
	clock_check_obs clock;  /* kept across polls until the next check */
	ntp_obs ntp;
	kernel_clock_obs kernel; /* not probed over SSH: the Prometheus source fills it */
	openntpd_obs openntpd;   /* openntpd (ntpctl) */
	chrony_ntpdata ntpdata;  /* chronyc ntpdata: how chronyd timestamps each source's packets */
} observation;

/* Reset every field to "unknown / not collected". */
void observation_init(observation *obs);

/* How the node timestamps PTP packets, for every output: "HW", "SW" or
 * "none" from ethtool -T; when ethtool was not asked, what ptp4l reports
 * on its primary port ("HW"/"SW"); else NULL (unknown).  A node without a
 * PTP port whose chronyd says how it timestamps its selected source's NTP
 * packets (ntpdata) shows that instead: "HW" (both ways), "HW rx"/"HW tx"
 * (one way), "SW" (kernel or daemon). */
const char *observation_timestamping(const observation *obs);
void chrony_obs_init(chrony_obs *chrony);
void ptp_obs_init(ptp_obs *ptp);
void nic_obs_init(nic_obs *nic);

/* The interfaces checked: nics[0..n_nics) as the ethtool collector fills
 * them; an observation with no entry there but an answer in nic (no
 * interface could be named, or one built by hand) has that one.  The count
 * is 0..NIC_MAX; observation_nic_at(obs, i) for i below it. */
int observation_nic_count(const observation *obs);
const nic_obs *observation_nic_at(const observation *obs, int i);

/* The checked interface called iface (at most len bytes), or NULL. */
const nic_obs *observation_nic_for(const observation *obs, const char *iface, size_t len);

/* Makes nic the primary PTP interface's entry of nics (the ethtool
 * collector calls it after decoding and after carrying nics over, once the
 * PTP part of the same observation is known); nic is left alone when no
 * interface was checked. */
void observation_settle_nic(observation *obs);

#endif
