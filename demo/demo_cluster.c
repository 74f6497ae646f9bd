/* demo_cluster.c - the nodes of `synctop --demo`, their evolving clocks, and
 * the tool output they print (see demo_cluster.h).
 *
 * Every value is computed from the elapsed time, never stepped: a node's
 * state at time t does not depend on when or how often it was asked, so a
 * slow poller, a test and the live view all see one consistent cluster.
 * The output formats are copied from the captured fixtures in tests/fixtures
 * (chronyc 4.3 -c, linuxptp 3.1 pmc, ethtool 6.1, procps ps). */
#include <config.h>

#include "demo_cluster.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector.h"
#include "observation.h"
#include "probe.h"
#include "text_sink.h"
#include "xalloc.h"


#define GPU_NODES 44
#define NODE_COUNT (4 + GPU_NODES + 2) /* + the ntpd and timesyncd nodes */
#define TWO_PI 6.283185307179586
#define SECONDS_PER_HOUR 3600.0
#define NS_PER_S 1000000000LL

/* chronyd on the clients polls ntp1 every 2^6 s, ntp1 its upstreams every 2^8 s. */
#define CLIENT_POLL 6
#define SERVER_POLL 8
#define NTP_SERVER_ADDR "10.20.0.10"
#define NTP_SERVER_REFID 0x0A14000Au
#define UPSTREAM1_ADDR "192.0.2.11"
#define UPSTREAM1_REFID 0xC000020Bu
#define UPSTREAM2_ADDR "198.51.100.7"
#define UPSTREAM2_REFID 0xC6336407u
/* Changes over time, so the events screen has something to show (none
 * changes a node's status, which the tests count):
 *   - gpu044 (FAULTY port, crit already) was also given a public server in
 *     chrony.conf; chronyd reselects between it and ntp1 every
 *     REFERENCE_SWITCH_S (cluster.reference is raised while it is on the
 *     public one);
 *   - grandmaster B's holdover estimate sits at its spec limit: clockClass
 *     7 (within) and 52 (out of specification) in turn every CLASS_SWITCH_S,
 *     both a warning;
 *   - a configuration run restarts chronyd on rack 2 (the healthy gpu020 ..
 *     gpu040) every RACK_RESTART_S, the first RACK_RESTART_FIRST_S after the
 *     epoch: one grouped daemon_restarted event. */
#define REFERENCE_SWITCH_S 20.0
#define CLASS_SWITCH_S 30.0
#define RACK_RESTART_S 60.0
#define RACK_RESTART_FIRST_S 25.0
#define RACK_FIRST_GPU 20
#define RACK_LAST_GPU 40
/* ethtool's netlink request names the device at this offset (fixture
 * ethtool-T-no-such-dev.stderr.txt). */
#define ETHTOOL_NAME_OFFSET 24
/* The drifting node: +5 ppm/h for 4 h, then back down (a thermal cycle). */
#define DRIFT_PPM_PER_HOUR 5.0
#define DRIFT_CYCLE_S (8 * SECONDS_PER_HOUR)

typedef enum {
	NIC_MLX5, /* hardware timestamps, PHC 0 */
	NIC_IGC,  /* hardware timestamps, PHC 0 */
	NIC_IGB,  /* hardware timestamps, PHC 0 */
	NIC_SOFT, /* software only (r8169, virtio) */
} nic_kind;

/* Independent noise streams per node; the value is part of the hash key,
 * and wander() adds WANDER_OCTAVE multiples for its finer octaves. */
enum {
	S_PARAM = 1,
	S_OFF_WALK,
	S_OFF_WHITE,
	S_LAST_OFF,
	S_MEASURED,
	S_RMS,
	S_FREQ_WALK,
	S_FREQ_WHITE,
	S_RESID,
	S_SKEW,
	S_ROOT_DELAY,
	S_ROOT_DISP,
	S_LAN_DELAY,
	S_UPDATE,
	S_STATS_SAMPLES,
	S_STATS_STDDEV,
	S_STATS_FREQ,
	S_PTP_WALK,
	S_PTP_WHITE,
	S_DELAY_WALK,
	S_DELAY_WHITE,
	S_RTT,
	S_CONNECT,
	S_SHELL,
	S_CHUNK,
	S_UPSTREAM,
};
#define WANDER_OCTAVE 0x100u

typedef struct {
	char name[16];
	demo_scenario scenario;
	uint64_t seed;
	char iface[16];
	nic_kind nic;
	char clock_id[PTP_ID_LEN];
	int gm;                 /* index of the grandmaster node followed, -1 = none */
	bool two_servers;       /* chronyd reselects between ntp1 and a public server */
	bool rack_restarts;     /* chronyd restarted with its rack every RACK_RESTART_S */

	/* chrony: offset = bias + sinusoid + wander + white noise */
	double freq_base_ppm;
	double off_bias_s, off_amp_s, off_period_s, off_phase, off_walk_s, off_white_s;
	double freq_phase;
	double skew_ppm;
	double lan_delay_s;     /* this node's share of the root delay */
	double disp_s;          /* this node's share of the root dispersion */
	double update_phase_s;  /* where in its poll cycle the node started */
	double free_offset_s;   /* a free-running clock's offset at the epoch */

	/* PTP, in ns */
	double ptp_bias_ns, ptp_amp_ns, ptp_period_s, ptp_phase, ptp_walk_ns, ptp_white_ns;
	double path_delay_ns;
	double sync_phase_s;    /* when in each second its Sync messages arrive */

	/* the network to it */
	double rtt_s;
	double connect_s;
} demo_node;

struct demo_cluster {
	uint64_t seed;
	double epoch;
	size_t n;
	size_t ntp_server;      /* index of ntp1 */
	demo_node nodes[NODE_COUNT];
};

/* ------------------------------------------------------------- noise */

/* splitmix64's finaliser: a good 64-bit mix, cheap and reproducible. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static uint64_t hash3(uint64_t seed, unsigned stream, int64_t k)
{
	return mix64(seed ^ mix64((uint64_t)k + mix64(stream)));
}

/* [0, 1) */
static double unit(uint64_t h)
{
	return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

/* [-1, 1) */
static double signed_unit(uint64_t h)
{
	return 2.0 * unit(h) - 1.0;
}

static double draw(uint64_t seed, unsigned what, double lo, double hi)
{
	return lo + (hi - lo) * unit(hash3(seed, S_PARAM, what));
}

/* Smooth noise in [-1, 1]: random values at multiples of `scale` seconds
 * joined by a smoothstep, so it has no jumps. */
static double smooth_noise(uint64_t seed, unsigned stream, double t, double scale)
{
	double x = t / scale;
	double f = floor(x);
	double u = x - f;
	double a = signed_unit(hash3(seed, stream, (int64_t)f));
	double b = signed_unit(hash3(seed, stream, (int64_t)f + 1));
	u = u * u * (3.0 - 2.0 * u);
	return a + (b - a) * u;
}

/* Looks like a bounded random walk: three octaves of smooth noise. */
static double wander(uint64_t seed, unsigned stream, double t, double scale)
{
	return (smooth_noise(seed, stream, t, scale) +
		0.5 * smooth_noise(seed, stream + WANDER_OCTAVE, t, scale / 3.0) +
		0.25 * smooth_noise(seed, stream + 2 * WANDER_OCTAVE, t, scale / 9.0)) / 1.75;
}

/* White noise in [-1, 1), a new value every `step` seconds. */
static double white(uint64_t seed, unsigned stream, double t, double step)
{
	return signed_unit(hash3(seed, stream, (int64_t)floor(t / step)));
}

/* x mod m in [0, m), also for negative x. */
static double wrap(double x, double m)
{
	double r = fmod(x, m);
	return r < 0 ? r + m : r;
}

/* ------------------------------------------------------------ scenarios */

static const char *const scenario_names[DEMO_SCENARIO_COUNT] = {
	[DEMO_NTP_SERVER] = "ntp-server",
	[DEMO_GRANDMASTER_A] = "grandmaster-a",
	[DEMO_GRANDMASTER_B] = "grandmaster-b",
	[DEMO_LOGIN] = "login",
	[DEMO_HEALTHY] = "healthy",
	[DEMO_DRIFT] = "drift",
	[DEMO_UNSYNC] = "unsynchronised",
	[DEMO_LEAP] = "leap-pending",
	[DEMO_OTHER_GM] = "other-grandmaster",
	[DEMO_SOFT_TS] = "software-timestamping",
	[DEMO_SLOW] = "slow",
	[DEMO_UNREACHABLE] = "unreachable",
	[DEMO_CHRONYD_DOWN] = "chronyd-down",
	[DEMO_LARGE_OFFSET] = "large-offset",
	[DEMO_PTP_FAULTY] = "ptp-faulty",
	[DEMO_WRONG_CLOCK] = "wrong-clock",
	[DEMO_PHC2SYS_DIED] = "phc2sys-died",
	[DEMO_SYNC_STOPPED] = "sync-stopped",
	[DEMO_CONTAINER_CHRONYD] = "container-chronyd",
	[DEMO_NTPD] = "ntpd",
	[DEMO_TIMESYNCD] = "timesyncd",
};

/* The gpu nodes that are not simply healthy. */
static const struct {
	int gpu;
	demo_scenario scenario;
} special_gpus[] = {
	{7, DEMO_DRIFT},
	{11, DEMO_WRONG_CLOCK},
	{13, DEMO_UNSYNC},
	{19, DEMO_LEAP},
	{23, DEMO_OTHER_GM},
	{29, DEMO_SOFT_TS},
	{31, DEMO_SLOW},
	{37, DEMO_UNREACHABLE},
	{41, DEMO_CHRONYD_DOWN},
	{43, DEMO_LARGE_OFFSET},
	{44, DEMO_PTP_FAULTY},
	{17, DEMO_PHC2SYS_DIED},
	{35, DEMO_SYNC_STOPPED},
	{5, DEMO_CONTAINER_CHRONYD},
};

const char *demo_scenario_name(demo_scenario s)
{
	if ((int)s < 0 || s >= DEMO_SCENARIO_COUNT) {
		return "?";
	}
	return scenario_names[s];
}

static bool is_grandmaster(demo_scenario s)
{
	return s == DEMO_GRANDMASTER_A || s == DEMO_GRANDMASTER_B;
}

/* Nodes that keep time with another daemon and have no chrony installed. */
static bool other_ntp_daemon(demo_scenario s)
{
	return s == DEMO_NTPD || s == DEMO_TIMESYNCD;
}

static bool runs_chronyd(demo_scenario s)
{
	return s != DEMO_CHRONYD_DOWN && s != DEMO_PHC2SYS_DIED && !other_ntp_daemon(s);
}

static bool runs_ptp4l(demo_scenario s)
{
	return s != DEMO_NTP_SERVER && s != DEMO_LOGIN && s != DEMO_CHRONYD_DOWN && !other_ntp_daemon(s);
}

/* The system clock has no discipline: it runs at its own frequency. */
static bool free_running(demo_scenario s)
{
	return s == DEMO_UNSYNC || s == DEMO_CHRONYD_DOWN;
}

/* --------------------------------------------------------------- set-up */

static void make_clock_id(demo_node *nd, const char *oui)
{
	uint64_t h = hash3(nd->seed, S_PARAM, 999);
	snprintf(nd->clock_id, sizeof nd->clock_id, "%s.fffe.%02x%02x%02x", oui, (unsigned)(h & 0xff),
		 (unsigned)((h >> 8) & 0xff), (unsigned)((h >> 16) & 0xff));
}

static void node_setup(demo_cluster *c, size_t i, const char *name, demo_scenario s)
{
	demo_node *nd = &c->nodes[i];
	memset(nd, 0, sizeof *nd);
	snprintf(nd->name, sizeof nd->name, "%s", name);
	nd->scenario = s;
	nd->seed = mix64(c->seed ^ mix64((uint64_t)i + 1));
	nd->gm = -1;

	switch (s) {
	case DEMO_NTP_SERVER:
		nd->nic = NIC_SOFT; /* a VM: virtio-net */
		snprintf(nd->iface, sizeof nd->iface, "eth0");
		make_clock_id(nd, "525400");
		break;
	case DEMO_LOGIN:
		nd->nic = NIC_IGB;
		snprintf(nd->iface, sizeof nd->iface, "eno1");
		make_clock_id(nd, "3cfdfe");
		break;
	case DEMO_GRANDMASTER_A:
	case DEMO_GRANDMASTER_B:
		nd->nic = NIC_IGC;
		snprintf(nd->iface, sizeof nd->iface, "enp1s0");
		make_clock_id(nd, "a0369f");
		break;
	case DEMO_SOFT_TS:
		nd->nic = NIC_SOFT; /* an onboard r8169: no hardware timestamps */
		snprintf(nd->iface, sizeof nd->iface, "enp3s0");
		make_clock_id(nd, "00e04c");
		break;
	default:
		nd->nic = NIC_MLX5;
		snprintf(nd->iface, sizeof nd->iface, "ens1f0np0");
		make_clock_id(nd, "0c42a1");
		break;
	}

	/* A quartz oscillator is typically within tens of ppm of nominal. */
	nd->freq_base_ppm = draw(nd->seed, 1, -18.0, 18.0);
	nd->freq_phase = draw(nd->seed, 2, 0, TWO_PI);
	nd->off_bias_s = draw(nd->seed, 3, -4e-6, 4e-6);
	nd->off_amp_s = draw(nd->seed, 4, 4e-6, 9e-6);
	nd->off_period_s = draw(nd->seed, 5, 700, 1500);
	nd->off_phase = draw(nd->seed, 6, 0, TWO_PI);
	nd->off_walk_s = draw(nd->seed, 7, 4e-6, 9e-6);
	nd->off_white_s = draw(nd->seed, 8, 0.5e-6, 2e-6);
	nd->skew_ppm = draw(nd->seed, 9, 0.015, 0.12);
	nd->lan_delay_s = draw(nd->seed, 10, 60e-6, 160e-6);
	nd->disp_s = draw(nd->seed, 11, 15e-6, 50e-6);
	nd->update_phase_s = draw(nd->seed, 12, 0, 256);
	nd->free_offset_s = draw(nd->seed, 13, 0.08, 0.4);

	nd->ptp_bias_ns = draw(nd->seed, 20, -6, 6);
	nd->ptp_amp_ns = draw(nd->seed, 21, 10, 28);
	nd->ptp_period_s = draw(nd->seed, 22, 90, 400);
	nd->ptp_phase = draw(nd->seed, 23, 0, TWO_PI);
	nd->ptp_walk_ns = draw(nd->seed, 24, 8, 20);
	nd->ptp_white_ns = draw(nd->seed, 25, 3, 8);
	nd->path_delay_ns = draw(nd->seed, 26, 520, 1950);
	nd->sync_phase_s = draw(nd->seed, 27, 0, 1);

	/* pmc waits 100 ms for late answers; the other tools and the LAN add a
	 * little on top. */
	nd->rtt_s = draw(nd->seed, 30, 0.106, 0.125);
	nd->connect_s = draw(nd->seed, 31, 0.04, 0.25);

	switch (s) {
	case DEMO_NTP_SERVER:
		/* follows upstream servers over a WAN: looser than the LAN clients */
		nd->off_amp_s = draw(nd->seed, 4, 10e-6, 20e-6);
		nd->off_walk_s = draw(nd->seed, 7, 8e-6, 15e-6);
		break;
	case DEMO_DRIFT:
		nd->freq_base_ppm = draw(nd->seed, 1, -12.0, -6.0);
		break;
	case DEMO_SOFT_TS:
		/* software timestamps: microseconds, not nanoseconds (lab-notes:
		 * -6..-13 us on veth) */
		nd->ptp_bias_ns = -6000;
		nd->ptp_amp_ns = 2500;
		nd->ptp_walk_ns = 1200;
		nd->ptp_white_ns = 700;
		nd->path_delay_ns = draw(nd->seed, 26, 18000, 24000);
		break;
	case DEMO_SLOW:
		nd->rtt_s = 1.5;
		nd->connect_s = 0.9;
		break;
	case DEMO_LARGE_OFFSET:
		nd->off_bias_s = 3.0e-3;
		nd->off_amp_s = 120e-6;
		nd->off_walk_s = 80e-6;
		break;
	default:
		break;
	}
}

demo_cluster *demo_cluster_new(uint64_t seed, double epoch)
{
	demo_cluster *c = xcalloc(1, sizeof *c);
	c->seed = seed;
	c->epoch = epoch;
	c->ntp_server = 0;
	node_setup(c, c->n++, "ntp1", DEMO_NTP_SERVER);
	size_t gm_a = c->n;
	node_setup(c, c->n++, "ptp-gm1", DEMO_GRANDMASTER_A);
	size_t gm_b = c->n;
	node_setup(c, c->n++, "ptp-gm2", DEMO_GRANDMASTER_B);
	node_setup(c, c->n++, "login1", DEMO_LOGIN);
	for (int g = 1; g <= GPU_NODES; g++) {
		demo_scenario s = DEMO_HEALTHY;
		for (size_t k = 0; k < sizeof special_gpus / sizeof special_gpus[0]; k++) {
			if (special_gpus[k].gpu == g) {
				s = special_gpus[k].scenario;
			}
		}
		char name[16];
		snprintf(name, sizeof name, "gpu%03d", g);
		node_setup(c, c->n, name, s);
		c->nodes[c->n].two_servers = s == DEMO_PTP_FAULTY;
		c->nodes[c->n].rack_restarts = s == DEMO_HEALTHY && g >= RACK_FIRST_GPU && g <= RACK_LAST_GPU;
		c->n++;
	}
	/* the nodes a cluster forgot to migrate to chrony (issue #17) */
	node_setup(c, c->n++, "build1", DEMO_NTPD);
	node_setup(c, c->n++, "edge1", DEMO_TIMESYNCD);
	for (size_t i = 0; i < c->n; i++) {
		demo_node *nd = &c->nodes[i];
		if (runs_ptp4l(nd->scenario) && !is_grandmaster(nd->scenario)) {
			nd->gm = nd->scenario == DEMO_OTHER_GM ? (int)gm_b : (int)gm_a;
		}
	}
	return c;
}

void demo_cluster_free(demo_cluster *c)
{
	free(c);
}

size_t demo_cluster_count(const demo_cluster *c)
{
	return c->n;
}

const char *demo_cluster_name(const demo_cluster *c, size_t i)
{
	return c->nodes[i].name;
}

demo_scenario demo_cluster_scenario(const demo_cluster *c, size_t i)
{
	return c->nodes[i].scenario;
}

const char *demo_cluster_iface(const demo_cluster *c, size_t i)
{
	return c->nodes[i].iface;
}

const char *demo_cluster_ntp_upstream(const demo_cluster *c, size_t i)
{
	return c->nodes[i].scenario == DEMO_NTP_SERVER ? UPSTREAM1_ADDR : NTP_SERVER_ADDR;
}

/* ------------------------------------------------------------ network */

bool demo_cluster_reachable(const demo_cluster *c, size_t i)
{
	return c->nodes[i].scenario != DEMO_UNREACHABLE;
}

double demo_cluster_connect_s(const demo_cluster *c, size_t i, uint64_t attempt)
{
	const demo_node *nd = &c->nodes[i];
	return nd->connect_s * (1.0 + 0.2 * white(nd->seed, S_CONNECT, (double)attempt, 1));
}

double demo_cluster_shell_start_s(const demo_cluster *c, size_t i, uint64_t attempt)
{
	const demo_node *nd = &c->nodes[i];
	return 0.02 + 0.01 * white(nd->seed, S_SHELL, (double)attempt, 1);
}

double demo_cluster_rtt_s(const demo_cluster *c, size_t i, uint64_t poll)
{
	const demo_node *nd = &c->nodes[i];
	double spread = nd->scenario == DEMO_SLOW ? 0.15 : 0.004;
	return nd->rtt_s + spread * white(nd->seed, S_RTT, (double)poll, 1);
}

double demo_cluster_exchange_rtt_s(const demo_cluster *c, size_t i, uint64_t poll)
{
	const demo_node *nd = &c->nodes[i];
	if (nd->scenario == DEMO_SLOW) {
		return demo_cluster_rtt_s(c, i, poll) - 0.1; /* no pmc wait */
	}
	/* a LAN round trip plus the fork of `date` */
	return 0.9e-3 + 0.3e-3 * fabs(white(nd->seed, S_RTT, (double)poll, 1));
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

int demo_cluster_chunks(const demo_cluster *c, size_t i, uint64_t poll, size_t len, size_t ends[DEMO_MAX_CHUNKS])
{
	const demo_node *nd = &c->nodes[i];
	uint64_t h = hash3(nd->seed, S_CHUNK, (int64_t)poll);
	int want = 1 + (int)(h % DEMO_MAX_CHUNKS);
	int n = 0;
	/* Cut anywhere, markers included: the reader must reassemble. */
	for (int k = 0; k + 1 < want && len > 1; k++) {
		size_t cut = 1 + (size_t)(unit(hash3(h, S_CHUNK, k)) * (double)(len - 1));
		if (cut >= len) {
			cut = len - 1;
		}
		ends[n++] = cut;
	}
	qsort(ends, (size_t)n, sizeof ends[0], cmp_size);
	int kept = 0;
	for (int k = 0; k < n; k++) {
		if (kept == 0 || ends[k] != ends[kept - 1]) {
			ends[kept++] = ends[k];
		}
	}
	ends[kept++] = len;
	return kept;
}

/* ------------------------------------------------------------- clocks */

typedef struct {
	double offset_s;        /* node - reference now: chrony's System time is minus this */
	double last_offset_s;
	double rms_offset_s;
	double freq_ppm;
	double resid_ppm;
	double skew_ppm;
	double root_delay_s;
	double root_disp_s;
	double interval_s;      /* update interval */
	double since_update_s;  /* since the last clock update (Last Rx is its whole seconds) */
	double update_offset_s; /* offset measured at the last update */
} chrony_state;

static double chrony_offset_at(const demo_node *nd, double t)
{
	double off = nd->off_bias_s + nd->off_amp_s * sin(TWO_PI * t / nd->off_period_s + nd->off_phase) +
		     nd->off_walk_s * wander(nd->seed, S_OFF_WALK, t, 400) +
		     nd->off_white_s * white(nd->seed, S_OFF_WHITE, t, 1);
	if (nd->scenario == DEMO_DRIFT) {
		/* chronyd's loop trails a ramping frequency by a few µs */
		off += wrap(t, DRIFT_CYCLE_S) < DRIFT_CYCLE_S / 2 ? 2.5e-6 : -2.5e-6;
	}
	return off;
}

/* 0 at the epoch, rising DRIFT_PPM_PER_HOUR for half a cycle, then falling. */
static double drift_ppm(double t)
{
	double p = wrap(t, DRIFT_CYCLE_S);
	double up = p < DRIFT_CYCLE_S / 2 ? p : DRIFT_CYCLE_S - p;
	return DRIFT_PPM_PER_HOUR * up / SECONDS_PER_HOUR;
}

static double frequency_at(const demo_node *nd, double t)
{
	/* Slow and small: a healthy node must stay far below the drift limit
	 * (1 ppm/h): the sinusoid changes by at most 0.06 ppm/h, the wander
	 * by at most 0.3 (0.08 seen over 48 h). */
	double f = nd->freq_base_ppm + 0.02 * sin(TWO_PI * t / 7200.0 + nd->freq_phase) +
		   0.02 * wander(nd->seed, S_FREQ_WALK, t, 1800) + 0.003 * white(nd->seed, S_FREQ_WHITE, t, 1);
	if (nd->scenario == DEMO_DRIFT) {
		f += drift_ppm(t);
	}
	return f;
}

static void chrony_state_at(const demo_cluster *c, const demo_node *nd, double t, chrony_state *st)
{
	const demo_node *server = &c->nodes[c->ntp_server];
	bool is_server = nd->scenario == DEMO_NTP_SERVER;

	st->interval_s = (double)(1 << (is_server ? SERVER_POLL : CLIENT_POLL));
	st->since_update_s = wrap(t + nd->update_phase_s, st->interval_s);
	double t_update = t - st->since_update_s;
	st->offset_s = chrony_offset_at(nd, t);
	st->update_offset_s = chrony_offset_at(nd, t_update) + 0.4e-6 * white(nd->seed, S_LAST_OFF, t_update, 1);
	st->last_offset_s = st->update_offset_s;
	st->rms_offset_s = 0.7 * nd->off_amp_s + 0.5 * nd->off_walk_s +
			   0.2e-6 * (1.0 + wander(nd->seed, S_RMS, t, 900));
	st->freq_ppm = frequency_at(nd, t);
	st->resid_ppm = 0.012 * white(nd->seed, S_RESID, t_update, 1);
	st->skew_ppm = nd->skew_ppm * (1.0 + 0.3 * wander(nd->seed, S_SKEW, t, 900));
	/* chronyd adds 1 ppm of the elapsed time to the dispersion until the next update */
	double server_delay = 1.15e-3 + 0.05e-3 * wander(server->seed, S_ROOT_DELAY, t, 600);
	double server_disp = 0.22e-3 + 0.03e-3 * wander(server->seed, S_ROOT_DISP, t, 600);
	if (is_server) {
		st->root_delay_s = server_delay;
		st->root_disp_s = server_disp + 1e-6 * st->since_update_s;
	} else {
		st->root_delay_s = server_delay + nd->lan_delay_s + 2e-6 * white(nd->seed, S_LAN_DELAY, t_update, 1);
		st->root_disp_s = server_disp + nd->disp_s + 1e-6 * st->since_update_s;
	}
	st->interval_s += 0.4 * (1.0 + white(nd->seed, S_UPDATE, t_update, 1));
}

/* The node's system clock minus true time. */
static double clock_offset(const demo_node *nd, double t)
{
	if (free_running(nd->scenario)) {
		return nd->free_offset_s + nd->freq_base_ppm * 1e-6 * t;
	}
	if (nd->scenario == DEMO_WRONG_CLOCK) {
		/* chronyd locked onto a source that is itself 2.2 s off */
		return 2.2 + chrony_offset_at(nd, t);
	}
	if (nd->scenario == DEMO_PHC2SYS_DIED) {
		/* left 4 ms off when phc2sys died, and free-running since */
		return 4e-3 + 0.2e-6 * t;
	}
	return chrony_offset_at(nd, t);
}

typedef struct {
	int64_t offset_ns;
	int64_t delay_ns;
} ptp_state;

static void ptp_state_at(const demo_node *nd, double t, ptp_state *st)
{
	double off = nd->ptp_bias_ns + nd->ptp_amp_ns * sin(TWO_PI * t / nd->ptp_period_s + nd->ptp_phase) +
		     nd->ptp_walk_ns * wander(nd->seed, S_PTP_WALK, t, 90) +
		     nd->ptp_white_ns * white(nd->seed, S_PTP_WHITE, t, 1);
	double jitter = nd->nic == NIC_SOFT ? 300.0 : 2.0;
	double delay = nd->path_delay_ns + jitter * white(nd->seed, S_DELAY_WHITE, t, 1) +
		       3.0 * jitter * wander(nd->seed, S_DELAY_WALK, t, 600);
	st->offset_ns = llround(off);
	st->delay_ns = llround(delay);
}

/* --------------------------------------------------------------- date */

static int render_time(const demo_cluster *c, const demo_node *nd, double now, text_sink *out)
{
	double node_time = now + clock_offset(nd, now - c->epoch);
	double sec = floor(node_time);
	long ns = (long)((node_time - sec) * 1e9);
	if (ns > 999999999L) {
		ns = 999999999L;
	}
	text_sink_printf(out, "%lld.%09ld\n", (long long)sec, ns);
	return 0;
}

/* ------------------------------------------------------------- chronyd */

/* What chronyd reports; the chrony collector renders it as chronyc prints
 * it (collectors/chrony.c). */
static void tracking_at(chrony_tracking *tr, uint32_t refid, const char *refname, int stratum, double now,
			const chrony_state *st, chrony_leap leap)
{
	tr->reference_id = refid;
	tr->has_reference_id = true;
	snprintf(tr->reference_name, sizeof tr->reference_name, "%s", refname);
	tr->stratum = stratum;
	tr->ref_time = now - st->since_update_s;
	tr->system_time_offset_s = st->offset_s;
	tr->last_offset_s = st->last_offset_s;
	tr->rms_offset_s = st->rms_offset_s;
	tr->frequency_ppm = st->freq_ppm;
	tr->residual_frequency_ppm = st->resid_ppm;
	tr->skew_ppm = st->skew_ppm;
	tr->root_delay_s = st->root_delay_s;
	tr->root_dispersion_s = st->root_disp_s;
	tr->update_interval_s = st->interval_s;
	tr->leap = leap;
}

static void source_at(chrony_obs *co, chrony_source_state state, const char *name, int stratum, int poll,
		      int64_t last_rx_s, double adjusted_s, double measured_s, double error_s)
{
	if (co->n_sources >= CHRONY_MAX_SOURCES) {
		return;
	}
	chrony_source *src = &co->sources[co->n_sources++];
	co->n_sources_total = co->n_sources;
	src->mode = CHRONY_MODE_SERVER;
	src->state = state;
	snprintf(src->name, sizeof src->name, "%s", name);
	src->stratum = stratum;
	src->poll = poll;
	src->reach = 0377;
	src->last_rx_s = last_rx_s;
	src->adjusted_offset_s = adjusted_s;
	src->measured_offset_s = measured_s;
	src->error_s = error_s;
}

static void sourcestat_at(chrony_obs *co, const demo_node *nd, const char *name, double t, const chrony_state *st,
			  int poll, double extra_offset_s, double skew_ppm)
{
	if (co->n_sourcestats >= CHRONY_MAX_SOURCES) {
		return;
	}
	chrony_sourcestat *ss = &co->sourcestats[co->n_sourcestats++];
	double interval = (double)(1 << poll);
	int samples = 6 + (int)(unit(hash3(nd->seed, S_STATS_SAMPLES, (int64_t)floor(t / (4 * interval)))) * 18);
	snprintf(ss->name, sizeof ss->name, "%s", name);
	ss->samples = samples;
	ss->runs = samples / 2 + 1;
	ss->span_s = (int)((samples - 1) * interval);
	ss->frequency_ppm = 0.02 * white(nd->seed, S_STATS_FREQ, t, interval);
	ss->skew_ppm = skew_ppm;
	ss->offset_s = st->offset_s + extra_offset_s;
	ss->std_dev_s = 3e-6 + 2e-6 * fabs(wander(nd->seed, S_STATS_STDDEV, t, 600)) + fabs(extra_offset_s) / 4;
}

/* gpu044's chronyd: on the public server for every other REFERENCE_SWITCH_S. */
static bool on_public_server(double t)
{
	return (int64_t)floor(t / REFERENCE_SWITCH_S) % 2 != 0;
}

/* Grandmaster B's clockClass: 7 (holdover within specification) and 52
 * (out of it) in turn. */
static int class_b(double t)
{
	return (int64_t)floor(t / CLASS_SWITCH_S) % 2 != 0 ? 52 : 7;
}

static void chrony_truth(const demo_cluster *c, const demo_node *nd, double now, chrony_obs *co)
{
	double t = now - c->epoch;
	chrony_state st;

	if (other_ntp_daemon(nd->scenario)) {
		co->state = OBS_TOOL_MISSING; /* chrony is not installed (ntpsec conflicts with it) */
		return;
	}
	if (!runs_chronyd(nd->scenario)) {
		co->state = OBS_DAEMON_UNREACHABLE;
		return;
	}
	co->state = OBS_OK;
	if (nd->scenario == DEMO_UNSYNC) {
		/* Never synchronised since it started (fixture
		 * chronyc-c-m-tracking-sources-unsync.txt): no reference, the
		 * frequency from its drift file, its only source never heard. */
		chrony_tracking *tr = &co->tracking;
		tr->ref_time = 0;
		tr->last_offset_s = 0;
		tr->rms_offset_s = 0;
		tr->frequency_ppm = nd->freq_base_ppm;
		tr->update_interval_s = 0;
		tr->leap = CHRONY_LEAP_UNSYNC;
		chrony_tracking_settle(tr);
		source_at(co, CHRONY_STATE_UNUSABLE, NTP_SERVER_ADDR, 0, CLIENT_POLL, -1, 0, 0, 0);
		co->sources[0].reach = 0;
		chrony_sourcestat *ss = &co->sourcestats[co->n_sourcestats++];
		snprintf(ss->name, sizeof ss->name, "%s", NTP_SERVER_ADDR);
		ss->skew_ppm = 2000.0;
		ss->offset_s = 0;
		ss->std_dev_s = 4.0;
		ss->frequency_ppm = 0;
		return;
	}

	chrony_state_at(c, nd, t, &st);
	if (nd->scenario == DEMO_NTP_SERVER) {
		/* stratum 2: two stratum-1 upstreams, the nearer one selected */
		double second = 60e-6 + 25e-6 * wander(nd->seed, S_UPSTREAM, t, 900);
		int rx2 = (int)wrap(t + nd->update_phase_s + 97, 1 << SERVER_POLL);
		tracking_at(&co->tracking, UPSTREAM1_REFID, UPSTREAM1_ADDR, 2, now, &st, CHRONY_LEAP_NORMAL);
		source_at(co, CHRONY_STATE_SELECTED, UPSTREAM1_ADDR, 1, SERVER_POLL, (int64_t)st.since_update_s,
			  st.update_offset_s, st.update_offset_s + 1.1e-6, 0.000621337);
		source_at(co, CHRONY_STATE_COMBINED, UPSTREAM2_ADDR, 1, SERVER_POLL, rx2, st.offset_s + second,
			  st.offset_s + second - 0.8e-6, 0.000884102);
		sourcestat_at(co, nd, UPSTREAM1_ADDR, t, &st, SERVER_POLL, 0, st.skew_ppm);
		sourcestat_at(co, nd, UPSTREAM2_ADDR, t, &st, SERVER_POLL, second, 1.7 * st.skew_ppm);
		return;
	}

	chrony_leap leap = nd->scenario == DEMO_LEAP ? CHRONY_LEAP_INSERT : CHRONY_LEAP_NORMAL;
	double error = st.root_delay_s / 2 + nd->disp_s + 8e-6;
	if (nd->two_servers && on_public_server(t)) {
		/* the public server, a stratum 2 over the WAN, selected for now */
		double lan = 45e-6 + 20e-6 * wander(nd->seed, S_UPSTREAM, t, 900);
		tracking_at(&co->tracking, UPSTREAM2_REFID, UPSTREAM2_ADDR, 3, now, &st, leap);
		source_at(co, CHRONY_STATE_SELECTED, UPSTREAM2_ADDR, 2, CLIENT_POLL, (int64_t)st.since_update_s,
			  st.update_offset_s, st.update_offset_s + 1.1e-6, error + 0.4e-3);
		source_at(co, CHRONY_STATE_COMBINED, NTP_SERVER_ADDR, 2, CLIENT_POLL,
			  (int64_t)wrap(t + nd->update_phase_s + 31, 1 << CLIENT_POLL), st.offset_s + lan,
			  st.offset_s + lan - 0.3e-6, error);
		sourcestat_at(co, nd, UPSTREAM2_ADDR, t, &st, CLIENT_POLL, 0, 1.6 * st.skew_ppm);
		sourcestat_at(co, nd, NTP_SERVER_ADDR, t, &st, CLIENT_POLL, lan, st.skew_ppm);
		return;
	}
	tracking_at(&co->tracking, NTP_SERVER_REFID, NTP_SERVER_ADDR, 3, now, &st, leap);
	source_at(co, CHRONY_STATE_SELECTED, NTP_SERVER_ADDR, 2, CLIENT_POLL, (int64_t)st.since_update_s,
		  st.update_offset_s, st.update_offset_s + 0.3e-6 * white(nd->seed, S_MEASURED, t, 1), error);
	sourcestat_at(co, nd, NTP_SERVER_ADDR, t, &st, CLIENT_POLL, 0, st.skew_ppm);
	if (nd->two_servers) {
		double wan = -45e-6 - 20e-6 * wander(nd->seed, S_UPSTREAM, t, 900);
		source_at(co, CHRONY_STATE_COMBINED, UPSTREAM2_ADDR, 2, CLIENT_POLL,
			  (int64_t)wrap(t + nd->update_phase_s + 31, 1 << CLIENT_POLL), st.offset_s + wan,
			  st.offset_s + wan + 1.1e-6, error + 0.4e-3);
		sourcestat_at(co, nd, UPSTREAM2_ADDR, t, &st, CLIENT_POLL, wan, 1.6 * st.skew_ppm);
	}
}

/* One source as selectdata reports it: its offset interval is the offset
 * +- its error (fixtures chronyc-c-n-selectdata-*.txt). */
static void selected_at(chrony_selection *sel, char state, const char *name, int64_t last, double offset_s,
			double error_s, chrony_leap leap)
{
	if (sel->n_sources >= CHRONY_MAX_SOURCES) {
		return;
	}
	chrony_select_source *src = &sel->sources[sel->n_sources++];
	sel->n_sources_total = sel->n_sources;
	src->state = state;
	snprintf(src->name, sizeof src->name, "%s", name);
	src->last_sample_ago_s = last;
	src->score = 1.0;
	src->interval_lo_s = offset_s - error_s;
	src->interval_hi_s = offset_s + error_s;
	src->leap = leap;
}

static void selection_truth(const demo_cluster *c, const demo_node *nd, double now, chrony_selection *sel)
{
	double t = now - c->epoch;
	chrony_state st;

	if (other_ntp_daemon(nd->scenario)) {
		sel->state = OBS_TOOL_MISSING;
		return;
	}
	if (!runs_chronyd(nd->scenario)) {
		sel->state = OBS_DAEMON_UNREACHABLE;
		return;
	}
	sel->state = OBS_OK;
	if (nd->scenario == DEMO_UNSYNC) {
		/* the unreachable source, as the real capture shows it */
		selected_at(sel, 's', NTP_SERVER_ADDR, 0, 0, 0, CHRONY_LEAP_UNSYNC);
		return;
	}
	chrony_state_at(c, nd, t, &st);
	if (nd->scenario == DEMO_NTP_SERVER) {
		double second = 60e-6 + 25e-6 * wander(nd->seed, S_UPSTREAM, t, 900);
		selected_at(sel, '*', UPSTREAM1_ADDR, (int64_t)st.since_update_s, st.update_offset_s, 0.000621337,
			    CHRONY_LEAP_NORMAL);
		selected_at(sel, '+', UPSTREAM2_ADDR, (int64_t)wrap(t + nd->update_phase_s + 97, 1 << SERVER_POLL),
			    st.offset_s + second, 0.000884102, CHRONY_LEAP_NORMAL);
		return;
	}
	chrony_leap leap = nd->scenario == DEMO_LEAP ? CHRONY_LEAP_INSERT : CHRONY_LEAP_NORMAL;
	double error = st.root_delay_s / 2 + nd->disp_s + 8e-6;
	bool public = nd->two_servers && on_public_server(t);
	selected_at(sel, public ? '+' : '*', NTP_SERVER_ADDR, (int64_t)st.since_update_s, st.update_offset_s, error,
		    leap);
	if (nd->two_servers) {
		selected_at(sel, public ? '*' : '+', UPSTREAM2_ADDR,
			    (int64_t)wrap(t + nd->update_phase_s + 31, 1 << CLIENT_POLL), st.offset_s, error + 0.4e-3,
			    leap);
	}
}

/* ---------------------------------------------------------------- ptp4l */

/* What ptp4l reports; the pmc collector renders it as pmc prints it
 * (collectors/pmc.c). */
static void ptp_truth(const demo_cluster *c, const demo_node *nd, double now, ptp_obs *p)
{
	if (!runs_ptp4l(nd->scenario)) {
		p->state = OBS_DAEMON_UNREACHABLE;
		return;
	}
	bool master = is_grandmaster(nd->scenario);
	const demo_node *gm = NULL; /* the grandmaster followed; NULL: the clock is its own */
	ptp_port_state state;
	if (master) {
		state = PTP_PORT_MASTER;
	} else if (nd->scenario == DEMO_PTP_FAULTY) {
		state = PTP_PORT_FAULTY; /* no master: the clock is its own grandmaster */
	} else {
		state = PTP_PORT_SLAVE;
		gm = nd->gm >= 0 ? &c->nodes[nd->gm] : NULL;
	}
	const char *gm_id = gm ? gm->clock_id : nd->clock_id;
	ptp_state ptp;
	ptp_state_at(nd, now - c->epoch, &ptp);

	p->state = OBS_OK;
	snprintf(p->clock_identity, sizeof p->clock_identity, "%s", nd->clock_id);
	p->domain_number = 0;
	p->slave_only = master ? 0 : 1;
	p->number_ports = 1;
	p->priority1 = master ? 100 : 128;
	p->priority2 = 128;
	double t_class = now - c->epoch;
	p->clock_class = !master ? 255 : nd->scenario == DEMO_GRANDMASTER_B ? class_b(t_class) : 6;

	/* false on the grandmaster itself and on a clock that lost its master */
	p->master_offset_ns = gm ? ptp.offset_ns : 0;
	p->gm_present = gm ? 1 : 0;
	snprintf(p->gm_identity, sizeof p->gm_identity, "%s", gm_id);

	p->steps_removed = gm ? 1 : 0;
	p->offset_from_master_ns = gm ? ptp.offset_ns : 0;
	p->mean_path_delay_ns = gm ? ptp.delay_ns : 0;

	snprintf(p->parent_port_identity, sizeof p->parent_port_identity, "%s-%d", gm_id, gm ? 1 : 0);
	snprintf(p->grandmaster_identity, sizeof p->grandmaster_identity, "%s", gm_id);
	p->gm_priority1 = gm || master ? 100 : 128;
	p->gm_priority2 = 128;
	/* grandmaster A is locked to GNSS (class 6); B has lost its reference
	 * and is in holdover at the edge of its specification (class 7 / 52) */
	const demo_node *gm_node = gm ? gm : master ? nd : NULL;
	p->gm_clock_class = !gm_node ? 255 : gm_node->scenario == DEMO_GRANDMASTER_B ? class_b(t_class) : 6;

	p->current_utc_offset = 37;
	p->current_utc_offset_valid = 0;
	p->leap61 = 0;
	p->leap59 = 0;
	p->ptp_timescale = 0;
	p->time_traceable = 0;
	p->frequency_traceable = 0;
	p->time_source = 0xa0;

	p->n_ports = 1;
	ptp_port *port = &p->ports[0];
	snprintf(port->port_identity, sizeof port->port_identity, "%s-1", nd->clock_id);
	port->port_number = 1;
	port->state = state;
	port->peer_mean_path_delay_ns = 0;
	port->log_sync_interval = 0;
	port->delay_mechanism = 1;
	snprintf(port->interface, sizeof port->interface, "%s", nd->iface);
	snprintf(port->timestamping, sizeof port->timestamping, "%s", nd->nic == NIC_SOFT ? "SOFTWARE" : "HARDWARE");

	/* One Sync (and Follow_Up) a second, one Announce every 2 s, since
	 * the epoch; the last Sync arrived at this second's sync phase, in
	 * the clock ptp4l timestamps with (the node's system clock under
	 * software timestamping, the PHC otherwise: both read here as the
	 * node's clock). */
	double t = now - c->epoch;
	int64_t syncs = t > 0 ? (int64_t)floor(t) + 1 : 1;
	if (nd->scenario == DEMO_SYNC_STOPPED) {
		syncs = 4242; /* Syncs stopped long ago; Announce still arrives */
	}
	ptp_port_sync *st = &port->sync;
	st->log_announce_interval = 1;
	st->announce_receipt_timeout = 3;
	if (gm) {
		st->rx_sync = st->rx_follow_up = syncs;
		st->rx_announce = (t > 0 ? (int64_t)floor(t) + 1 : 1) / 2; /* Announce never stops here */
		st->rx_delay_resp = syncs;
		st->tx_delay_req = syncs;
		st->tx_sync = st->tx_announce = 0;
	} else {
		st->rx_sync = st->rx_follow_up = st->rx_delay_resp = st->rx_announce = 0;
		st->tx_sync = master ? syncs : 0;
		st->tx_announce = master ? syncs / 2 : 0;
		st->tx_delay_req = 0;
	}
	double node_now = now + clock_offset(nd, t);
	/* ptp4l timestamps in the system clock with software timestamping,
	 * else in the PHC, which follows its master to within the PTP offset
	 * (phc_truth reads the same PHC) */
	double stamp_now = nd->nic == NIC_SOFT ? node_now : now + (gm ? (double)ptp.offset_ns * 1e-9 : 0.0);
	double last = floor(stamp_now - nd->sync_phase_s) + nd->sync_phase_s;
	if (nd->scenario == DEMO_SYNC_STOPPED) {
		last = stamp_now - 42.0; /* the last Sync, 42 s ago (crit above 6 s) */
	}
	p->ingress_time_ns = gm ? (int64_t)floor(last) * NS_PER_S + (int64_t)((last - floor(last)) * 1e9) : 0;
	p->realtime_before_ns = (int64_t)floor(node_now) * NS_PER_S + (int64_t)((node_now - floor(node_now)) * 1e9);
	p->realtime_after_ns = p->realtime_before_ns + 104000000; /* pmc waits 100 ms for late answers */
}

/* ------------------------------------------------------------------ ps */

/* One time daemon's process: PID and start (seconds after the node booted),
 * where it runs and whether it may set the clock. */
static void add_place(double uptime, daemons_obs *d, unsigned bit, int pid, double started,
		      const char *cgroup)
{
	if (d->n_places >= DAEMONS_MAX_PLACES) {
		return;
	}
	daemon_place *p = &d->places[d->n_places++];
	d->n_places_total++;
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->bit = bit;
	p->age_s = (int64_t)floor(uptime - started);
	p->cgroup_read = true;
	snprintf(p->cgroup, sizeof p->cgroup, "%s", cgroup);
	p->can_set = CAN_SET_TIME_YES;
	d->running |= bit;
	daemon_proc *proc = &d->procs[daemon_index(bit)];
	proc->count++;
	if (proc->pid == 0 || p->age_s < proc->age_s) {
		proc->pid = p->pid;
		proc->age_s = p->age_s;
	}
}

/* What ps and /proc show of the time daemons (collectors/daemons.c renders
 * it): started at boot by systemd, in their units' cgroups (pure cgroup v2);
 * the container-chronyd node also runs a training job's container (a pod
 * under containerd, started 3 h 20 min before the epoch) whose image ships
 * chronyd and was given CAP_SYS_TIME. */
static void daemons_truth(const demo_cluster *c, const demo_node *nd, double now, daemons_obs *d)
{
	daemons_obs_init(d);
	d->state = OBS_OK;
	double uptime = now - c->epoch + draw(nd->seed, 40, 2 * 86400.0, 40 * 86400.0);
	int base = 400 + (int)draw(nd->seed, 41, 0, 300);
	if (runs_chronyd(nd->scenario)) {
		int pid = base + 12;
		double started = 9.0;
		double t = now - c->epoch;
		if (nd->rack_restarts && t >= RACK_RESTART_FIRST_S) {
			/* the k-th restart by its rack's configuration run: a new PID */
			int64_t k = (int64_t)floor((t - RACK_RESTART_FIRST_S) / RACK_RESTART_S) + 1;
			pid = base + 2000 + (int)(17 * (k % 100000));
			started = uptime - (t - (RACK_RESTART_FIRST_S + (double)(k - 1) * RACK_RESTART_S));
		}
		add_place(uptime, d, DAEMON_CHRONYD, pid, started, "/system.slice/chrony.service");
	}
	if (runs_ptp4l(nd->scenario)) {
		add_place(uptime, d, DAEMON_PTP4L, base + 341, 11.0, "/system.slice/ptp4l.service");
	}
	if (is_grandmaster(nd->scenario)) {
		/* feeds the PHC from the NTP-disciplined system clock */
		add_place(uptime, d, DAEMON_PHC2SYS, base + 352, 12.0, "/system.slice/phc2sys.service");
	}
	if (nd->scenario == DEMO_NTPD) {
		add_place(uptime, d, DAEMON_NTPD, base + 12, 9.0, "/system.slice/ntpsec.service");
	}
	if (nd->scenario == DEMO_TIMESYNCD) {
		add_place(uptime, d, DAEMON_TIMESYNCD, base + 12, 9.0, "/system.slice/systemd-timesyncd.service");
	}
	if (nd->scenario == DEMO_CONTAINER_CHRONYD) {
		char cg[sizeof d->places[0].cgroup];
		snprintf(cg, sizeof cg,
			 "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%08x_4c1e_4d2a_9b7e_5f3a0c81d6e2.slice/"
			 "cri-containerd-%016llx%016llx%016llx%016llx.scope",
			 (unsigned)(hash3(nd->seed, S_PARAM, 990) & 0xffffffffu),
			 (unsigned long long)hash3(nd->seed, S_PARAM, 991), (unsigned long long)hash3(nd->seed, S_PARAM, 992),
			 (unsigned long long)hash3(nd->seed, S_PARAM, 993), (unsigned long long)hash3(nd->seed, S_PARAM, 994));
		double job_started = uptime - (now - c->epoch) - 12000.0;
		add_place(uptime, d, DAEMON_CHRONYD, 48211, job_started, cg);
	}
}

/* ------------------------------------------------------------- ethtool */

static int render_ethtool(const demo_node *nd, const char *iface, text_sink *out, text_sink *err)
{
	if (iface == NULL || iface[0] == '\0' || strcmp(iface, "-") == 0) {
		iface = nd->iface; /* the probe looks up the default route, which is this one */
	}
	if (strcmp(iface, nd->iface) != 0) {
		text_sink_printf(err, "netlink error: no device matches name (offset %d)\nnetlink error: No such device\n",
			    ETHTOOL_NAME_OFFSET);
		return 1;
	}
	text_sink_printf(out, "Time stamping parameters for %s:\nCapabilities:\n", nd->iface);
	if (nd->nic == NIC_SOFT) {
		text_sink_puts(out, "\tsoftware-transmit\n"
			       "\tsoftware-receive\n"
			       "\tsoftware-system-clock\n"
			       "PTP Hardware Clock: none\n"
			       "Hardware Transmit Timestamp Modes: none\n"
			       "Hardware Receive Filter Modes: none\n");
		return 0;
	}
	text_sink_puts(out, "\thardware-transmit\n"
		       "\tsoftware-transmit\n"
		       "\thardware-receive\n"
		       "\tsoftware-receive\n"
		       "\tsoftware-system-clock\n"
		       "\thardware-raw-clock\n"
		       "PTP Hardware Clock: 0\n"
		       "Hardware Transmit Timestamp Modes:\n"
		       "\toff\n"
		       "\ton\n"
		       "Hardware Receive Filter Modes:\n"
		       "\tnone\n"
		       "\tall\n");
	return 0;
}

/* ------------------------------------------------------------ the API */

/* What phc_ctl reads where ptp4l timestamps in hardware (collectors/phc_ctl.c
 * renders it): CLOCK_REALTIME - PHC, the PHC at true time plus the port's
 * offset from its master (a clock that follows none: on its system clock,
 * which a grandmaster's phc2sys copies into it), the system clock where the
 * simulator put it. */
static void phc_truth(double now, observation *t)
{
	const ptp_port *port = ptp_primary_port(&t->ptp);
	if (!port || strcmp(port->timestamping, "HARDWARE") != 0 || !isfinite(t->node_time)) {
		return;
	}
	phc_obs *phc = &t->phc;
	phc->state = OBS_OK;
	snprintf(phc->interface, sizeof phc->interface, "%s", port->interface);
	double phc_ahead_s = ptp_following_port(&t->ptp) ? (double)t->ptp.offset_from_master_ns * 1e-9
							 : t->node_time - now;
	int64_t utc_ns = t->ptp.ptp_timescale == 1 ? (int64_t)t->ptp.current_utc_offset * 1000000000LL : 0;
	phc->realtime_minus_phc_ns = llround((t->node_time - now - phc_ahead_s) * 1e9) - utc_ns;
	phc->phc_time_ns = llround((now + phc_ahead_s) * 1e9) + utc_ns;
}

/* ------------------------------------------------ ntpd and timesyncd nodes */

/* ntpd (ntpsec 1.2.2) following ntp1, as `ntpq -n -c rv -c peers` shows it
 * (collectors/ntpq.c renders it; fixture ntpq-n-rv-peers-synced.txt):
 * the node's offset and frequency from the same simulation as a chrony
 * client's, at ntpq's printed precision. */
static void ntp_truth(const demo_cluster *c, const demo_node *nd, double now, ntp_obs *n)
{
	double t = now - c->epoch;
	chrony_state st;
	chrony_state_at(c, nd, t, &st);
	ntp_obs_init(n);
	n->state = OBS_OK;
	n->ran = true;
	snprintf(n->version, sizeof n->version, "ntpd ntpsec-1.2.2");
	n->status = 0x0618; /* leap none, sync ntp, 1 event, clock sync */
	n->leap = 0;
	n->stratum = 3;
	snprintf(n->refid, sizeof n->refid, "%s", NTP_SERVER_ADDR);
	n->offset_s = round(st.offset_s * 1e9) / 1e9;
	n->sys_jitter_s = round((4e-6 + nd->off_white_s) * 1e9) / 1e9;
	n->clk_jitter_s = round(2 * nd->off_white_s * 1e9) / 1e9;
	n->clk_wander_ppm = 0.011;
	n->frequency_ppm = round(st.freq_ppm * 1e6) / 1e6;
	n->root_delay_s = round(st.root_delay_s * 1e6) / 1e6;
	n->root_dispersion_s = round(st.root_disp_s * 1e6) / 1e6;
	n->tc = 6;
	n->n_peers = n->n_peers_total = 1;
	ntp_peer *p = &n->peers[0];
	p->tally = '*';
	snprintf(p->remote, sizeof p->remote, "%s", NTP_SERVER_ADDR);
	snprintf(p->refid, sizeof p->refid, "%s", UPSTREAM1_ADDR);
	p->stratum = 2;
	p->type = 'u';
	p->when_s = (int)st.since_update_s;
	p->poll_s = 64;
	p->reach = 0377;
	p->delay_s = round(2 * nd->lan_delay_s * 1e7) / 1e7;
	p->offset_s = round(st.update_offset_s * 1e7) / 1e7;
	p->jitter_s = round((1e-6 + nd->off_white_s) * 1e7) / 1e7;
}

/* systemd-timesyncd following ntp1, as timedatectl shows it
 * (collectors/timesyncd.c renders it). */
static void timesyncd_truth(const demo_cluster *c, const demo_node *nd, double now, timesyncd_obs *ts)
{
	double t = now - c->epoch;
	chrony_state st;
	chrony_state_at(c, nd, t, &st);
	ts->state = OBS_OK;
	ts->ntp_enabled = 1;
	ts->kernel_synchronised = 1;
	snprintf(ts->server_name, sizeof ts->server_name, "%s", NTP_SERVER_ADDR);
	snprintf(ts->server_address, sizeof ts->server_address, "%s", NTP_SERVER_ADDR);
	ts->poll_interval_s = 2048;
	ts->packet_count = 40 + (int64_t)(t / 2048 > 0 ? t / 2048 : 0);
	ts->ignored = false;
	ts->leap = 0;
	ts->stratum = 3;
	ts->precision = -25;
	snprintf(ts->reference, sizeof ts->reference, "C000020B"); /* ntp1's reference 192.0.2.11 */
	ts->root_delay_s = round(st.root_delay_s * 1e6) / 1e6;
	ts->root_dispersion_s = round(st.root_disp_s * 1e6) / 1e6;
	ts->offset_s = round(st.update_offset_s * 1e6) / 1e6;
	ts->delay_s = round(2 * nd->lan_delay_s * 1e6) / 1e6;
	ts->jitter_s = round((1e-6 + nd->off_white_s) * 1e6) / 1e6;
	ts->frequency_ppm = round(st.freq_ppm * 65536.0) / 65536.0;
}

void demo_cluster_truth(const demo_cluster *c, size_t i, double now, observation *truth)
{
	const demo_node *nd = &c->nodes[i];
	observation_init(truth);
	truth->node_time = now + clock_offset(nd, now - c->epoch);
	chrony_truth(c, nd, now, &truth->chrony);
	selection_truth(c, nd, now, &truth->selection);
	ptp_truth(c, nd, now, &truth->ptp);
	phc_truth(now, truth);
	daemons_truth(c, nd, now, &truth->daemons);
	if (nd->scenario == DEMO_NTPD) {
		ntp_truth(c, nd, now, &truth->ntp);
	}
	if (nd->scenario == DEMO_TIMESYNCD) {
		timesyncd_truth(c, nd, now, &truth->timesyncd);
	}
}

/* Tools whose output the demo still prints itself, by section name: the
 * simulator has not moved them into their collectors' demo_render yet
 * (its part is being reshaped: one NIC per PTP port). */
typedef int (*own_renderer)(const demo_cluster *c, const demo_node *nd, double now, const char *iface,
			    text_sink *out, text_sink *err);

static int own_ethtool(const demo_cluster *c, const demo_node *nd, double now, const char *iface,
		       text_sink *out, text_sink *err)
{
	(void)c;
	(void)now;
	return render_ethtool(nd, iface, out, err);
}

static const struct {
	const char *section;
	own_renderer render;
} own_renderers[] = {
	{"ethtool", own_ethtool},
};

/* Whether the demo shows a section on a node in this state. */
static bool section_shown(const char *section, const observation *truth)
{
	if (strcmp(section, "time") == 0) {
		return true;
	}
	const collector *col = collector_find(section);
	if (col && col->demo_render) {
		return !(col->part_state && col->part_state(truth) == OBS_NOT_COLLECTED);
	}
	for (size_t r = 0; r < sizeof own_renderers / sizeof own_renderers[0]; r++) {
		if (strcmp(own_renderers[r].section, section) == 0) {
			return true;
		}
	}
	return false;
}

/* The output of one section on node i: the time, a collector's demo
 * renderer fed the node's true state, or the demo's own renderer.  Returns
 * the exit status, or DEMO_NO_SECTION when the demo does not show it (the
 * collector's part stays not collected, as on a node whose probe lacks it). */
static int render(const demo_cluster *c, size_t i, const char *section, double now, const char *iface,
		  const observation *truth, text_sink *out, text_sink *err)
{
	const demo_node *nd = &c->nodes[i];
	if (!section_shown(section, truth)) {
		return DEMO_NO_SECTION;
	}
	if (strcmp(section, "time") == 0) {
		return render_time(c, nd, now, out);
	}
	const collector *col = collector_find(section);
	if (col && col->demo_render) {
		return col->demo_render(truth, iface ? iface : "-", out, err);
	}
	for (size_t r = 0; r < sizeof own_renderers / sizeof own_renderers[0]; r++) {
		if (strcmp(own_renderers[r].section, section) == 0) {
			return own_renderers[r].render(c, nd, now, iface, out, err);
		}
	}
	return DEMO_NO_SECTION;
}

int demo_cluster_render_tool(const demo_cluster *c, size_t i, const char *section, double now, const char *iface,
			     char *out, size_t out_len, size_t *out_n, char *err, size_t err_len, size_t *err_n)
{
	text_sink o, e;
	observation truth;
	text_sink_init(&o, out, out_len);
	text_sink_init(&e, err, err_len);
	demo_cluster_truth(c, i, now, &truth);
	int rc = render(c, i, section, now, iface, &truth, &o, &e);
	*out_n = o.len;
	*err_n = e.len;
	if (rc == DEMO_NO_SECTION) {
		return rc;
	}
	return o.overflow || e.overflow ? -1 : rc;
}

/* One section as synctop_run prints it (probe.h); false when it does not
 * fit.  A section the demo does not show is left out. */
static bool render_section(const demo_cluster *c, size_t i, const char *name, double now, const char *nonce,
			   const char *iface, const observation *truth, text_sink *t)
{
	/* stdout goes straight into the answer; stderr is replayed after it */
	char err_buf[512];
	text_sink err;
	text_sink_init(&err, err_buf, sizeof err_buf);
	if (!section_shown(name, truth)) {
		return true;
	}
	text_sink_printf(t, "@@synctop %s section %s\n", nonce, name);
	int rc = render(c, i, name, now, iface, truth, t, &err);
	text_sink_printf(t, "\n@@synctop %s stderr\n", nonce);
	if (err.overflow) {
		return false;
	}
	text_sink_put(t, err.buf, err.len);
	text_sink_printf(t, "\n@@synctop %s rc %d\n", nonce, rc);
	return true;
}

int demo_cluster_render_response(const demo_cluster *c, size_t i, double now, const char *nonce, unsigned flags,
				 const char *iface, bool banner, char *buf, size_t len)
{
	text_sink t;
	observation truth;
	text_sink_init(&t, buf, len);
	if (!probe_nonce_valid(nonce)) {
		return -1;
	}
	demo_cluster_truth(c, i, now, &truth);
	if (banner) {
		text_sink_puts(&t, "@@synctop ready\n");
	}
	text_sink_printf(&t, "@@synctop %s begin\n", nonce);
	if (!render_section(c, i, "time", now, nonce, iface, &truth, &t)) {
		return -1;
	}
	for (size_t k = 0; k < collector_registry_count && !(flags & PROBE_FLAG_TIME_ONLY); k++) {
		const collector *col = collector_registry[k];
		if (!col->command || (col->cadence == COLLECT_PERIODIC && !(flags & col->request_bit))) {
			continue; /* no probe section (collector.h) or not asked */
		}
		if (!render_section(c, i, col->name, now, nonce, iface, &truth, &t)) {
			return -1;
		}
	}
	text_sink_printf(&t, "@@synctop %s end\n", nonce);
	return t.overflow ? -1 : (int)t.len;
}
