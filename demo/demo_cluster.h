/* demo_cluster.h - the simulated cluster behind `synctop --demo`.
 *
 * A fixed list of nodes (ntp1, ptp-gm1, ptp-gm2, login1, gpu001..gpu044),
 * each playing one scenario.  Every number a node shows is a pure function
 * of (seed, node, time since the epoch): sinusoids, smooth noise that wanders
 * like a random walk, and white noise per sample, so the same seed and time
 * always give the same bytes and tests can rely on them.  A few states
 * change over time (demo_cluster.c: a chrony reference, a clockClass, a
 * rack's chronyd restarts) so that the events screen has something to show;
 * none of them changes a node's status.
 *
 * The simulator gives each node's true state (demo_cluster_truth: the parts
 * of an observation), and each collector's demo renderer prints it as its
 * tool would (core/collector.h demo_render: chronyc, pmc, ps, ...); the
 * tool not moved to its collector yet (ethtool) is printed here.  The
 * answer is framed the way the probe shell does (probe.h) and goes through
 * the same parsers and health rules as a real node's.
 *
 * Memory is one fixed array of nodes; rendering writes into caller buffers
 * and allocates nothing. */
#ifndef SYNCTOP_DEMO_CLUSTER_H
#define SYNCTOP_DEMO_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "observation.h"

#define DEMO_CLUSTER_DEFAULT_SEED 20261202u
#define DEMO_RESPONSE_MAX 16384 /* a whole framed response fits (about 6 KiB in practice) */
#define DEMO_MAX_CHUNKS 4       /* pieces an answer is delivered in */
#define DEMO_SSH_PORT 22

typedef enum {
	DEMO_NTP_SERVER = 0, /* chronyd stratum 2 following two upstream servers, serving the rest */
	DEMO_GRANDMASTER_A,  /* ptp4l MASTER (grandmaster A), PHC fed from the system clock by phc2sys */
	DEMO_GRANDMASTER_B,  /* a second grandmaster on another network segment */
	DEMO_LOGIN,          /* chrony client only */
	DEMO_HEALTHY,        /* chrony client of ntp1 + PTP slave of A with hardware timestamps */
	DEMO_DRIFT,          /* healthy, but its frequency ramps by 5 ppm/h */
	DEMO_UNSYNC,         /* chronyd never synchronised: its only source does not answer */
	DEMO_LEAP,           /* healthy, leap second announced ("Insert second") */
	DEMO_OTHER_GM,       /* PTP slave of grandmaster B */
	DEMO_SOFT_TS,        /* ptp4l on a NIC without hardware timestamping */
	DEMO_SLOW,           /* healthy, but answers after about 1.5 s */
	DEMO_UNREACHABLE,    /* TCP connect to port 22 times out, every time */
	DEMO_CHRONYD_DOWN,   /* chronyd stopped ("506 Cannot talk to daemon"), no ptp4l */
	DEMO_LARGE_OFFSET,   /* chrony system clock about 3 ms ahead */
	DEMO_PTP_FAULTY,     /* the PTP port is FAULTY */
	DEMO_WRONG_CLOCK,    /* chronyd claims sync within microseconds, but the clock is 2.2 s ahead */
	DEMO_PHC2SYS_DIED,   /* PTP-only node whose phc2sys died: ptp4l locked, the system clock 4 ms off its PHC */
	DEMO_SYNC_STOPPED,   /* SLAVE still hears Announce but no Sync has arrived for a while */
	DEMO_CONTAINER_CHRONYD, /* healthy, but a training container runs its own chronyd with CAP_SYS_TIME */
	DEMO_NTPD,           /* ntpd (ntpsec) instead of chronyd, synchronised to ntp1; no chronyc, no ptp4l */
	DEMO_TIMESYNCD,      /* systemd-timesyncd instead of chronyd, synchronised to ntp1; no chronyc, no ptp4l */
	DEMO_SCENARIO_COUNT
} demo_scenario;

/* A section the demo does not show (demo_cluster_render_tool). */
#define DEMO_NO_SECTION (-2)

typedef struct demo_cluster demo_cluster;

/* `epoch` is the unix time the simulation starts at (time 0 of every
 * trend).  Dies on OOM like xmalloc; free with demo_cluster_free. */
demo_cluster *demo_cluster_new(uint64_t seed, double epoch);
void demo_cluster_free(demo_cluster *c);

size_t demo_cluster_count(const demo_cluster *c);
/* Index i must be < demo_cluster_count(). */
const char *demo_cluster_name(const demo_cluster *c, size_t i);
demo_scenario demo_cluster_scenario(const demo_cluster *c, size_t i);
/* The node's default-route interface, which is also the one ptp4l uses. */
const char *demo_cluster_iface(const demo_cluster *c, size_t i);
/* The NTP server node i is meant to follow, as an operator would write it in
 * ntp_upstream (the relay ntp1 follows its own upstream). */
const char *demo_cluster_ntp_upstream(const demo_cluster *c, size_t i);
/* "healthy", "drift", ...: for messages and test names. */
const char *demo_scenario_name(demo_scenario s);

/* ------------------------------------------------ the simulated network */

bool demo_cluster_reachable(const demo_cluster *c, size_t i);
/* TCP connect + SSH handshake + shell start for connection attempt n. */
double demo_cluster_connect_s(const demo_cluster *c, size_t i, uint64_t attempt);
/* Starting a new shell on an established connection. */
double demo_cluster_shell_start_s(const demo_cluster *c, size_t i, uint64_t attempt);
/* Request sent -> answer complete, for poll n (pmc alone waits 100 ms). */
double demo_cluster_rtt_s(const demo_cluster *c, size_t i, uint64_t poll);
/* The same for a clock exchange (PROBE_FLAG_TIME_ONLY): network and `date`. */
double demo_cluster_exchange_rtt_s(const demo_cluster *c, size_t i, uint64_t poll);
/* Where poll n's answer of len bytes is cut: fills ends[] with increasing
 * end offsets, the last one len, and returns how many (1..DEMO_MAX_CHUNKS). */
int demo_cluster_chunks(const demo_cluster *c, size_t i, uint64_t poll, size_t len,
			size_t ends[DEMO_MAX_CHUNKS]);

/* ------------------------------------------------------------ rendering */

/* Node i's true state at unix time `now`, as the simulator models it: the
 * parts the collectors' demo renderers print (collector.h demo_render);
 * the other parts stay not collected. */
void demo_cluster_truth(const demo_cluster *c, size_t i, double now, observation *truth);

/* What the probe section `section` ("time" or a collector's name) prints on
 * node i at unix time `now`: stdout into out, stderr into err (both
 * NUL-terminated; *out_n and *err_n get the lengths).  iface is the
 * request's interface (NULL, "" or "-" = the default route's).  Returns the
 * exit status, DEMO_NO_SECTION when the demo does not show that section, or
 * -1 when a buffer is too small. */
int demo_cluster_render_tool(const demo_cluster *c, size_t i, const char *section, double now, const char *iface,
			     char *out, size_t out_len, size_t *out_n, char *err, size_t err_len, size_t *err_n);

/* The probe shell's whole answer to the request "nonce flags iface" at unix
 * time `now`, framed as probe.h describes, with the "@@synctop ready" line in
 * front when `banner` (the first answer of a new shell).  nonce must pass
 * probe_nonce_valid(); flags are PROBE_FLAG_*; iface as the shell received
 * it ("-" = unknown).  Returns the length (buf is NUL-terminated), or -1
 * when the nonce is invalid or buf is too small. */
int demo_cluster_render_response(const demo_cluster *c, size_t i, double now, const char *nonce, unsigned flags,
				 const char *iface, bool banner, char *buf, size_t len);

#endif
