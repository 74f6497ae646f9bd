/* pmc_parse.c - turn `pmc -u -b 0 'GET ...' ...` output into a ptp_obs.
 *
 * pmc (linuxptp) has no machine format.  For each request it prints
 * "sending: GET <ID>", and for each answer a header and field lines:
 *     \t<portIdentity> seq <N> RESPONSE MANAGEMENT <ID> \n
 *     \t\t<field> <value>\n ...
 * interleaved in arrival order.  Blocks are keyed by <ID> and fields by name,
 * so order, unknown fields and unknown data sets do not matter.
 *
 * Signs: offsetFromMaster (CURRENT_DATA_SET) and master_offset
 * (TIME_STATUS_NP) are slave - master = node - reference, synctop's own
 * convention, so they are stored unchanged.  offsetFromMaster and
 * meanPathDelay are printed "%.1f" ns and rounded to the nearest ns, halves
 * away from zero; numbers are parsed by hand because strtod follows
 * LC_NUMERIC and the buffers are not NUL-terminated.
 *
 * Rules (pmc prints each block with one fprintf; every line ends in '\n'):
 *  - A NUL byte, a malformed block header, a field line outside any block, or
 *    a used field whose value is not a number in range -> OBS_GARBAGE.
 *  - A last line without its '\n' once pmc output has begun -> OBS_TRUNCATED:
 *    the cut may lie inside a value ("-66" of "-6600.0"), so none of it is
 *    trusted.  Callers must pass stdout verbatim, final newline included.
 *  - A block with fewer field lines than pmc prints is fine: what is there
 *    is used, the rest stays unknown.  Unknown fields and IDs are skipped.
 *  - Only the node's own clock counts; see "Whose answer is it" below.
 *  - The same data set twice: the later block wins, field by field.  Port
 *    data sets merge into ports[] by port identity.
 *  - An identity with characters outside [0-9a-fA-F.-], or too long for
 *    PTP_ID_LEN, is left "" (that field only; never truncated into a
 *    different identity).  Same for interface/timestamping text.
 *  - MANAGEMENT_ERROR_STATUS answers (pmc 3.1 prints only the header) do not
 *    fail the other blocks: the refused request, found by matching seq N to
 *    the N-th "sending:" line, is named in dst->error, which may therefore be
 *    non-empty while state is OBS_OK.  Only error answers -> OBS_NOT_SUPPORTED.
 *  - clock_identity comes from DEFAULT_DATA_SET, or else from the headers.
 *  - PORT_SERVICE_STATS_NP exists from linuxptp 4.0 on and is asked for
 *    anyway: pmc 3.1 rejects it ("bad command: GET PORT_SERVICE_STATS_NP" on
 *    stderr, no "sending:" line, no seq used: pmc_common.c pmc_do_command()),
 *    a 3.1 ptp4l refuses it with MANAGEMENT_ERROR_STATUS.  Neither is noted
 *    nor classifies an answer: the timeout counts just stay unknown.
 *  - The collector's command brackets pmc with the node's CLOCK_REALTIME
 *    (collectors/pmc.c): a first line "synctop-realtime-ns before <ns>" and a
 *    last line "synctop-realtime-ns after <ns>", which pmc never prints (its
 *    stdout is "sending:" lines, tab-led blocks and "id ... is too
 *    ambiguous").  They are taken off before the rest is parsed as pmc's;
 *    a read that is not a plain number stays unknown.
 * On any state but OBS_OK every data field is left unknown.
 *
 * Whose answer is it.  Other clocks' answers reach pmc even with -b 0:
 * clock.c clock_forward_mgmt_msg() forwards RESPONSEs arriving on a network
 * port to the UDS-RW port, and uds.c uds_send() delivers them to the last
 * client that spoke (uds_recv() keeps its address), often our pmc
 * (captured: tests/fixtures/pmc-b0-batch-*.txt, see
 * pmc-batch-multi-responder.source.md).  Reports show them first, too.  The
 * node's clock is told apart by linuxptp's numbering (master f98cb5d):
 *  - clock.c clock_create() opens the UDS ports with port number 0; network
 *    ports get 1, 2, ... (clock_add_port(), ++c->last_port_number).
 *  - clock.c clock_manage() answers the clock-wide GETs (DEFAULT_DATA_SET,
 *    CURRENT_DATA_SET, PARENT_DATA_SET, TIME_PROPERTIES_DATA_SET,
 *    TIME_STATUS_NP) via clock_management_get_response(), whose reply takes
 *    port_identity(p) of the port p the request came in on (port.c
 *    port_management_reply() -> port_management_construct() sets
 *    header.sourcePortIdentity), and pmc.c pmc_show() prints that.  Errors
 *    from clock_management_send_error() carry the same identity.
 *  - So over the socket the node answers clock-wide sets as "<clock>-0";
 *    another clock answers a forwarded request from its network port,
 *    "<clock>-N", N >= 1.  Port data sets (port.c port_manage()) carry the
 *    answering port's identity on every clock.
 * Hence: the node's clock is the first that answers from port 0 (in any
 * position; the whole output is scanned first).  Every block from another
 * clock identity only counts in foreign_responses; the raw output keeps it.
 * When nothing answered from port 0 although a clock-wide set was asked for
 * or answered, the node's ptp4l gave nothing of its own: the state is
 * OBS_DAEMON_UNREACHABLE, naming the first clock that did.  Only when the
 * output has no clock-wide set at all (a query of port data sets) is the
 * first responder taken, noted in dst->error when others answered too.
 */
#include <config.h>

#include "pmc_parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "text_span.h"

/* The next word, or an empty span at the end. */
static text_span next_word(text_span *rest)
{
	text_span w;
	text_span_word_space(rest, &w);
	return w;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool all_space(text_span s)
{
	for (size_t i = 0; i < s.n; i++) {
		if (!is_blank(s.p[i]) && s.p[i] != '\n') {
			return false;
		}
	}
	return true;
}

/* Bounded copy of a C string that always terminates; truncation is meant. */
static void copy_str(char *dst, size_t cap, const char *src)
{
	size_t n = strnlen(src, cap - 1);
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* First line of s that contains needle, or the first non-blank line when
 * needle is NULL; returns false when there is none. */
static bool find_line(text_span s, const char *needle, text_span *line)
{
	size_t pos = 0;
	while (pos < s.n) {
		const char *nl = memchr(s.p + pos, '\n', s.n - pos);
		size_t end = nl ? (size_t)(nl - s.p) : s.n;
		text_span l = text_span_trim_space((text_span){s.p + pos, end - pos});
		pos = end + 1;
		if (l.n > 0 && (!needle || text_span_contains(l, needle))) {
			*line = l;
			return true;
		}
	}
	return false;
}

/* ------------------------------------------------------------- numbers */

static int digit_value(char c, int base)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (base == 16 && c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	if (base == 16 && c >= 'A' && c <= 'F') {
		return c - 'A' + 10;
	}
	return -1;
}

/* Optional sign, then decimal digits (or 0x-hex when hex_ok), then, when
 * fraction_ok, an optional ".digits" that rounds to nearest, halves away
 * from zero.  The whole text_span must be consumed.  |value| <= INT64_MAX, so
 * the result is never the INT64_MIN "unknown" sentinel. */
static bool parse_number(text_span s, bool hex_ok, bool fraction_ok, int64_t *out)
{
	size_t i = 0;
	bool neg = false;
	if (i < s.n && (s.p[i] == '-' || s.p[i] == '+')) {
		neg = s.p[i] == '-';
		i++;
	}
	int base = 10;
	if (hex_ok && s.n - i > 2 && s.p[i] == '0' && (s.p[i + 1] == 'x' || s.p[i + 1] == 'X')) {
		base = 16;
		i += 2;
	}
	uint64_t mag = 0;
	size_t first = i;
	for (; i < s.n; i++) {
		int d = digit_value(s.p[i], base);
		if (d < 0) {
			break;
		}
		if (mag > ((uint64_t)INT64_MAX - (uint64_t)d) / (uint64_t)base) {
			return false;
		}
		mag = mag * (uint64_t)base + (uint64_t)d;
	}
	if (i == first) {
		return false;
	}
	if (fraction_ok && base == 10 && i < s.n && s.p[i] == '.') {
		i++;
		size_t frac = i;
		bool round_up = false;
		for (; i < s.n && s.p[i] >= '0' && s.p[i] <= '9'; i++) {
			if (i == frac) {
				round_up = s.p[i] >= '5';
			}
		}
		if (i == frac) {
			return false;
		}
		if (round_up) {
			if (mag == (uint64_t)INT64_MAX) {
				return false;
			}
			mag++;
		}
	}
	if (i != s.n) {
		return false;
	}
	*out = neg ? -(int64_t)mag : (int64_t)mag;
	return true;
}

/* ---------------------------------------------------------- identities */

static bool is_hex(char c)
{
	return digit_value(c, 16) >= 0;
}

/* Any identity field: [0-9a-fA-F.-]+ that fits PTP_ID_LEN with its NUL. */
static bool valid_identity(text_span s)
{
	if (s.n == 0 || s.n >= PTP_ID_LEN) {
		return false;
	}
	for (size_t i = 0; i < s.n; i++) {
		if (!is_hex(s.p[i]) && s.p[i] != '.' && s.p[i] != '-') {
			return false;
		}
	}
	return true;
}

/* A port identity "<clock>-<port>": splits it and checks both halves. */
static bool split_port_identity(text_span s, char clock[PTP_ID_LEN], int *port)
{
	if (!valid_identity(s)) {
		return false;
	}
	size_t dash = s.n;
	while (dash > 0 && s.p[dash - 1] != '-') {
		dash--;
	}
	if (dash < 2) {
		return false; /* no '-', or nothing before it */
	}
	text_span number = {s.p + dash, s.n - dash};
	int64_t v;
	if (!parse_number(number, false, false, &v) || v > 65535) {
		return false;
	}
	for (size_t i = 0; i + 1 < dash; i++) {
		if (s.p[i] == '-') {
			return false; /* a clock identity never holds '-' */
		}
	}
	memcpy(clock, s.p, dash - 1);
	clock[dash - 1] = '\0';
	*port = (int)v;
	return true;
}

/* Callers validate the length first; the bound is kept anyway. */
static void store_text(char *dst, size_t cap, text_span s)
{
	size_t n = s.n < cap ? s.n : cap - 1;
	memcpy(dst, s.p, n);
	dst[n] = '\0';
}

/* ------------------------------------------------------ the data sets */

typedef enum {
	FK_INT,       /* int in [min, max], decimal or 0x-hex */
	FK_TRUEFALSE, /* "true"/"false" -> 1/0 */
	FK_NS_INT,    /* int64 ns printed as an integer */
	FK_NS_FRAC,   /* int64 ns printed "%.1f", rounded */
	FK_CLOCK_ID,  /* char[PTP_ID_LEN] */
	FK_PORT_ID,   /* char[PTP_ID_LEN], "<clock>-<port>" */
	FK_PORT_STATE,
	FK_WORD,      /* char[size]: printable, no blanks; "" if it does not fit */
	FK_COUNT,     /* int64 message or event count, decimal, >= 0 */
} field_kind;

typedef struct {
	const char *name;
	field_kind kind;
	size_t offset; /* into ptp_obs, or ptp_port for port data sets */
	size_t size;   /* FK_WORD buffer size */
	int min, max;
} field_spec;

typedef struct {
	const char *id;
	bool per_port;
	const field_spec *fields;
	size_t n_fields;
} dataset_spec;

#define OBS_FIELD(name, kind, member, min, max) \
	{name, kind, offsetof(ptp_obs, member), sizeof(((ptp_obs *)0)->member), min, max}
#define PORT_FIELD(name, kind, member, min, max) \
	{name, kind, offsetof(ptp_port, member), sizeof(((ptp_port *)0)->member), min, max}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const field_spec time_status_fields[] = {
	OBS_FIELD("master_offset", FK_NS_INT, master_offset_ns, 0, 0),
	OBS_FIELD("gmPresent", FK_TRUEFALSE, gm_present, 0, 1),
	OBS_FIELD("gmIdentity", FK_CLOCK_ID, gm_identity, 0, 0),
	OBS_FIELD("ingress_time", FK_NS_INT, ingress_time_ns, 0, 0),
};

static const field_spec current_fields[] = {
	OBS_FIELD("stepsRemoved", FK_INT, steps_removed, INT16_MIN, INT16_MAX),
	OBS_FIELD("offsetFromMaster", FK_NS_FRAC, offset_from_master_ns, 0, 0),
	OBS_FIELD("meanPathDelay", FK_NS_FRAC, mean_path_delay_ns, 0, 0),
};

static const field_spec parent_fields[] = {
	OBS_FIELD("parentPortIdentity", FK_PORT_ID, parent_port_identity, 0, 0),
	OBS_FIELD("grandmasterPriority1", FK_INT, gm_priority1, 0, UINT8_MAX),
	OBS_FIELD("gm.ClockClass", FK_INT, gm_clock_class, 0, UINT8_MAX),
	OBS_FIELD("grandmasterPriority2", FK_INT, gm_priority2, 0, UINT8_MAX),
	OBS_FIELD("grandmasterIdentity", FK_CLOCK_ID, grandmaster_identity, 0, 0),
};

static const field_spec default_fields[] = {
	OBS_FIELD("slaveOnly", FK_INT, slave_only, 0, 1),
	OBS_FIELD("numberPorts", FK_INT, number_ports, 0, UINT16_MAX),
	OBS_FIELD("priority1", FK_INT, priority1, 0, UINT8_MAX),
	OBS_FIELD("clockClass", FK_INT, clock_class, 0, UINT8_MAX),
	OBS_FIELD("priority2", FK_INT, priority2, 0, UINT8_MAX),
	OBS_FIELD("clockIdentity", FK_CLOCK_ID, clock_identity, 0, 0),
	OBS_FIELD("domainNumber", FK_INT, domain_number, 0, UINT8_MAX),
};

static const field_spec time_properties_fields[] = {
	OBS_FIELD("currentUtcOffset", FK_INT, current_utc_offset, INT16_MIN, INT16_MAX),
	OBS_FIELD("leap61", FK_INT, leap61, 0, 1),
	OBS_FIELD("leap59", FK_INT, leap59, 0, 1),
	OBS_FIELD("currentUtcOffsetValid", FK_INT, current_utc_offset_valid, 0, 1),
	OBS_FIELD("ptpTimescale", FK_INT, ptp_timescale, 0, 1),
	OBS_FIELD("timeTraceable", FK_INT, time_traceable, 0, 1),
	OBS_FIELD("frequencyTraceable", FK_INT, frequency_traceable, 0, 1),
	OBS_FIELD("timeSource", FK_INT, time_source, 0, UINT8_MAX),
};

static const field_spec port_fields[] = {
	PORT_FIELD("portIdentity", FK_PORT_ID, port_identity, 0, 0),
	PORT_FIELD("portState", FK_PORT_STATE, state, 0, 0),
	PORT_FIELD("peerMeanPathDelay", FK_NS_INT, peer_mean_path_delay_ns, 0, 0),
	PORT_FIELD("logSyncInterval", FK_INT, log_sync_interval, INT8_MIN, INT8_MAX),
	PORT_FIELD("delayMechanism", FK_INT, delay_mechanism, 0, UINT8_MAX),
	PORT_FIELD("logAnnounceInterval", FK_INT, sync.log_announce_interval, INT8_MIN, INT8_MAX),
	PORT_FIELD("announceReceiptTimeout", FK_INT, sync.announce_receipt_timeout, 0, UINT8_MAX),
};

static const field_spec port_properties_fields[] = {
	PORT_FIELD("portIdentity", FK_PORT_ID, port_identity, 0, 0),
	PORT_FIELD("portState", FK_PORT_STATE, state, 0, 0),
	PORT_FIELD("timestamping", FK_WORD, timestamping, 0, 0),
	PORT_FIELD("interface", FK_WORD, interface, 0, 0),
};

/* linuxptp pmc.c pmc_show() MID_PORT_STATS_NP: every count "%" PRIu64. */
static const field_spec port_stats_fields[] = {
	PORT_FIELD("portIdentity", FK_PORT_ID, port_identity, 0, 0),
	PORT_FIELD("rx_Sync", FK_COUNT, sync.rx_sync, 0, 0),
	PORT_FIELD("rx_Follow_Up", FK_COUNT, sync.rx_follow_up, 0, 0),
	PORT_FIELD("rx_Delay_Resp", FK_COUNT, sync.rx_delay_resp, 0, 0),
	PORT_FIELD("rx_Announce", FK_COUNT, sync.rx_announce, 0, 0),
	PORT_FIELD("tx_Sync", FK_COUNT, sync.tx_sync, 0, 0),
	PORT_FIELD("tx_Delay_Req", FK_COUNT, sync.tx_delay_req, 0, 0),
	PORT_FIELD("tx_Announce", FK_COUNT, sync.tx_announce, 0, 0),
};

/* pmc.c pmc_show() MID_PORT_SERVICE_STATS_NP (linuxptp >= 4.0). */
static const field_spec port_service_stats_fields[] = {
	PORT_FIELD("portIdentity", FK_PORT_ID, port_identity, 0, 0),
	PORT_FIELD("announce_timeout", FK_COUNT, sync.announce_timeouts, 0, 0),
	PORT_FIELD("sync_timeout", FK_COUNT, sync.sync_timeouts, 0, 0),
};

static const dataset_spec datasets[] = {
	{"TIME_STATUS_NP", false, time_status_fields, COUNT(time_status_fields)},
	{"CURRENT_DATA_SET", false, current_fields, COUNT(current_fields)},
	{"PARENT_DATA_SET", false, parent_fields, COUNT(parent_fields)},
	{"DEFAULT_DATA_SET", false, default_fields, COUNT(default_fields)},
	{"TIME_PROPERTIES_DATA_SET", false, time_properties_fields, COUNT(time_properties_fields)},
	{"PORT_DATA_SET", true, port_fields, COUNT(port_fields)},
	{"PORT_PROPERTIES_NP", true, port_properties_fields, COUNT(port_properties_fields)},
	{"PORT_STATS_NP", true, port_stats_fields, COUNT(port_stats_fields)},
	{"PORT_SERVICE_STATS_NP", true, port_service_stats_fields, COUNT(port_service_stats_fields)},
};

/* Asked for although older linuxptp does not know it (see the top). */
static bool optional_request(text_span request)
{
	return text_span_contains(request, "PORT_SERVICE_STATS_NP");
}

/* Every state name linuxptp's ps_str[] prints. */
static const struct {
	const char *name;
	ptp_port_state state;
} port_states[] = {
	{"INITIALIZING", PTP_PORT_INITIALIZING},
	{"FAULTY", PTP_PORT_FAULTY},
	{"DISABLED", PTP_PORT_DISABLED},
	{"LISTENING", PTP_PORT_LISTENING},
	{"PRE_MASTER", PTP_PORT_PRE_MASTER},
	{"MASTER", PTP_PORT_MASTER},
	{"PASSIVE", PTP_PORT_PASSIVE},
	{"UNCALIBRATED", PTP_PORT_UNCALIBRATED},
	{"SLAVE", PTP_PORT_SLAVE},
	{"GRAND_MASTER", PTP_PORT_GRAND_MASTER},
};

static ptp_port_state port_state_from(text_span s)
{
	for (size_t i = 0; i < COUNT(port_states); i++) {
		if (text_span_eq(s, port_states[i].name)) {
			return port_states[i].state;
		}
	}
	return PTP_PORT_UNKNOWN;
}

static bool valid_word(text_span s, size_t cap)
{
	if (s.n >= cap) {
		return false;
	}
	for (size_t i = 0; i < s.n; i++) {
		unsigned char c = (unsigned char)s.p[i];
		if (c <= 0x20 || c >= 0x7f) {
			return false;
		}
	}
	return true;
}

/* Store one value into base (a ptp_obs or a ptp_port).  Returns false only
 * when a number was required and the value is not one: identities and text
 * that fail their check are stored as "" instead. */
static bool store_field(const field_spec *f, text_span value, char *base)
{
	void *dst = base + f->offset;
	int64_t v;

	switch (f->kind) {
	case FK_INT:
		if (!parse_number(value, true, false, &v) || v < f->min || v > f->max) {
			return false;
		}
		*(int *)dst = (int)v;
		return true;
	case FK_TRUEFALSE:
		if (text_span_eq(value, "true")) {
			*(int *)dst = 1;
		} else if (text_span_eq(value, "false")) {
			*(int *)dst = 0;
		} else {
			return false;
		}
		return true;
	case FK_NS_INT:
	case FK_NS_FRAC:
		if (!parse_number(value, false, f->kind == FK_NS_FRAC, &v)) {
			return false;
		}
		*(int64_t *)dst = v;
		return true;
	case FK_CLOCK_ID:
		if (valid_identity(value)) {
			store_text(dst, PTP_ID_LEN, value);
		} else {
			*(char *)dst = '\0';
		}
		return true;
	case FK_PORT_ID: {
		char clock[PTP_ID_LEN];
		int port;
		if (split_port_identity(value, clock, &port)) {
			store_text(dst, PTP_ID_LEN, value);
		} else {
			*(char *)dst = '\0';
		}
		return true;
	}
	case FK_PORT_STATE:
		*(ptp_port_state *)dst = port_state_from(value);
		return true;
	case FK_WORD:
		if (valid_word(value, f->size)) {
			store_text(dst, f->size, value);
		} else {
			*(char *)dst = '\0';
		}
		return true;
	case FK_COUNT:
		if (value.n == 0 || value.p[0] == '-' || value.p[0] == '+' ||
		    !parse_number(value, false, false, &v)) {
			return false;
		}
		*(int64_t *)dst = v;
		return true;
	}
	return false;
}

/* ------------------------------------------------------------- parser */

#define MAX_REQUESTS 64 /* seq numbers we can name; bit i of noted_seqs */
#define REQUEST_LEN 40

typedef enum {
	BLOCK_NONE,  /* outside any block: a field line here is garbage */
	BLOCK_SKIP,  /* foreign clock, error status, unknown ID: fields skipped */
	BLOCK_CLOCK, /* a clock data set, read straight into dst */
	BLOCK_PORT,  /* a port data set, gathered in `port`, merged at its end */
} block_kind;

typedef struct {
	ptp_obs *dst;

	block_kind kind;
	const dataset_spec *ds;
	ptp_port port;
	char header_pid[PTP_ID_LEN];

	char local_clock[PTP_ID_LEN];
	bool have_local;     /* else every RESPONSE is another clock's */
	bool local_guessed;  /* first responder: no port-0 answer to go by */
	char first_foreign[PTP_ID_LEN];
	int sending;
	char requests[MAX_REQUESTS][REQUEST_LEN];
	bool any_header;
	int data_blocks;  /* local RESPONSE MANAGEMENT blocks */
	int error_blocks; /* local RESPONSE MANAGEMENT_ERROR_STATUS blocks */
	uint64_t noted_seqs;
	int ports_dropped;

	obs_state fail;
	char fail_msg[OBS_ERROR_LEN];
} parser;

static void fail(parser *ps, obs_state state, const char *msg)
{
	if (ps->fail == OBS_OK) {
		ps->fail = state;
		copy_str(ps->fail_msg, sizeof ps->fail_msg, msg);
	}
}

/* Append a "; "-separated note to dst->error, truncating safely. */
static void add_note(ptp_obs *dst, const char *note)
{
	size_t len = strlen(dst->error);
	if (len > 0) {
		copy_str(dst->error + len, sizeof dst->error - len, "; ");
		len = strlen(dst->error);
	}
	copy_str(dst->error + len, sizeof dst->error - len, note);
}

static void port_init(ptp_port *p)
{
	memset(p, 0, sizeof *p);
	p->port_number = INT_UNKNOWN;
	p->state = PTP_PORT_UNKNOWN;
	p->peer_mean_path_delay_ns = PTP_NS_UNKNOWN;
	p->log_sync_interval = INT_UNKNOWN;
	p->delay_mechanism = INT_UNKNOWN;
	ptp_port_sync_init(&p->sync);
}

static void merge_int(int *dst, int src)
{
	if (src != INT_UNKNOWN) {
		*dst = src;
	}
}

static void merge_count(int64_t *dst, int64_t src)
{
	if (src != PTP_COUNT_UNKNOWN) {
		*dst = src;
	}
}

static void port_sync_merge(ptp_port_sync *dst, const ptp_port_sync *src)
{
	merge_int(&dst->log_announce_interval, src->log_announce_interval);
	merge_int(&dst->announce_receipt_timeout, src->announce_receipt_timeout);
	merge_count(&dst->rx_sync, src->rx_sync);
	merge_count(&dst->rx_follow_up, src->rx_follow_up);
	merge_count(&dst->rx_delay_resp, src->rx_delay_resp);
	merge_count(&dst->rx_announce, src->rx_announce);
	merge_count(&dst->tx_sync, src->tx_sync);
	merge_count(&dst->tx_delay_req, src->tx_delay_req);
	merge_count(&dst->tx_announce, src->tx_announce);
	merge_count(&dst->announce_timeouts, src->announce_timeouts);
	merge_count(&dst->sync_timeouts, src->sync_timeouts);
}

/* Fields src knows overwrite dst's: the later block wins. */
static void port_merge(ptp_port *dst, const ptp_port *src)
{
	if (src->state != PTP_PORT_UNKNOWN) {
		dst->state = src->state;
	}
	if (src->peer_mean_path_delay_ns != PTP_NS_UNKNOWN) {
		dst->peer_mean_path_delay_ns = src->peer_mean_path_delay_ns;
	}
	if (src->log_sync_interval != INT_UNKNOWN) {
		dst->log_sync_interval = src->log_sync_interval;
	}
	if (src->delay_mechanism != INT_UNKNOWN) {
		dst->delay_mechanism = src->delay_mechanism;
	}
	if (src->interface[0]) {
		memcpy(dst->interface, src->interface, sizeof dst->interface);
	}
	if (src->timestamping[0]) {
		memcpy(dst->timestamping, src->timestamping, sizeof dst->timestamping);
	}
	port_sync_merge(&dst->sync, &src->sync);
}

/* A port block is complete: key it by its portIdentity field, or by the
 * header's when that field is missing or names another clock (the header
 * is what made the block the node's), and merge it into ports[]. */
static void commit_port(parser *ps)
{
	ptp_obs *dst = ps->dst;
	const char *key = ps->port.port_identity;
	char clock[PTP_ID_LEN];
	int number;
	if (!key[0] || !split_port_identity((text_span){key, strlen(key)}, clock, &number) ||
	    strcmp(clock, ps->local_clock) != 0) {
		key = ps->header_pid;
	}
	if (!split_port_identity((text_span){key, strlen(key)}, clock, &number)) {
		return; /* cannot happen: the header was validated as a port identity */
	}

	ptp_port *slot = NULL;
	for (int i = 0; i < dst->n_ports; i++) {
		if (strcmp(dst->ports[i].port_identity, key) == 0) {
			slot = &dst->ports[i];
			break;
		}
	}
	if (!slot) {
		if (dst->n_ports >= PTP_MAX_PORTS) {
			ps->ports_dropped++;
			return;
		}
		slot = &dst->ports[dst->n_ports++];
		port_init(slot);
		copy_str(slot->port_identity, sizeof slot->port_identity, key);
		slot->port_number = number;
	}
	port_merge(slot, &ps->port);
}

static void end_block(parser *ps)
{
	if (ps->kind == BLOCK_PORT) {
		commit_port(ps);
	}
	ps->kind = BLOCK_NONE;
	ps->ds = NULL;
}

static void on_sending(parser *ps, text_span line)
{
	end_block(ps);
	if (ps->sending < MAX_REQUESTS) {
		text_span rest = {line.p + strlen("sending:"), line.n - strlen("sending:")};
		text_span_copy_printable(ps->requests[ps->sending], REQUEST_LEN, text_span_trim_space(rest));
	}
	ps->sending++;
}

/* MANAGEMENT_ERROR_STATUS: name the refused request once per seq (a
 * boundary clock answers a port request once per port). */
static void note_error_status(parser *ps, int seq, text_span detail)
{
	if (seq < MAX_REQUESTS) {
		if (ps->noted_seqs & ((uint64_t)1 << seq)) {
			return;
		}
		ps->noted_seqs |= (uint64_t)1 << seq;
	}
	if (seq < ps->sending && seq < MAX_REQUESTS &&
	    optional_request((text_span){ps->requests[seq], strlen(ps->requests[seq])})) {
		return;
	}
	char what[REQUEST_LEN + 16];
	if (seq < ps->sending && seq < MAX_REQUESTS && ps->requests[seq][0]) {
		copy_str(what, sizeof what, ps->requests[seq]);
	} else {
		snprintf(what, sizeof what, "request seq %d", seq);
	}
	/* pmc 3.1 prints no error id; keep one if a newer pmc does */
	char why[32] = "";
	if (valid_word(detail, sizeof why)) {
		store_text(why, sizeof why, detail);
	}
	char note[OBS_ERROR_LEN];
	snprintf(note, sizeof note, "ptp4l refused %s (MANAGEMENT_ERROR_STATUS%s%s)", what,
		 why[0] ? " " : "", why);
	add_note(ps->dst, note);
}

static const dataset_spec *find_dataset(text_span id)
{
	for (size_t i = 0; i < COUNT(datasets); i++) {
		if (text_span_eq(id, datasets[i].id)) {
			return &datasets[i];
		}
	}
	return NULL;
}

/* A block header "\t<clock>-<port> seq <N> <action> [<tlv> [<ID>]]". */
typedef struct {
	text_span pid, action, tlv, id;
	char clock[PTP_ID_LEN];
	int port;
	int seq;
} header;

static bool parse_header(text_span line, header *h)
{
	text_span rest = {line.p + 1, line.n - 1};
	h->pid = next_word(&rest);
	text_span seq_word = next_word(&rest);
	text_span seq_num = next_word(&rest);
	h->action = next_word(&rest);
	h->tlv = next_word(&rest);
	h->id = next_word(&rest);

	int64_t seq;
	if (!split_port_identity(h->pid, h->clock, &h->port) || !text_span_eq(seq_word, "seq") ||
	    !parse_number(seq_num, false, false, &seq) || seq < 0 || seq > 65535 ||
	    h->action.n == 0) {
		return false;
	}
	h->seq = (int)seq;
	return true;
}

static bool is_clock_wide(text_span id)
{
	const dataset_spec *ds = find_dataset(id);
	return ds && !ds->per_port;
}

/* Before parsing: which clock is the node's ("Whose answer is it" above).
 * Looks only at complete lines, as the parse does. */
static void find_local_clock(parser *ps, const char *text, size_t len)
{
	char first[PTP_ID_LEN] = "";
	bool clock_wide = false;
	size_t pos = 0;
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		if (!nl) {
			break;
		}
		text_span line = {text + pos, (size_t)(nl - text) - pos};
		pos = (size_t)(nl - text) + 1;
		if (text_span_starts(line, "sending:")) {
			text_span rest = {line.p + strlen("sending:"), line.n - strlen("sending:")};
			text_span action = next_word(&rest);
			clock_wide |= text_span_eq(action, "GET") && is_clock_wide(next_word(&rest));
			continue;
		}
		header h;
		if (line.n < 2 || line.p[0] != '\t' || line.p[1] == '\t' || !parse_header(line, &h) ||
		    !text_span_eq(h.action, "RESPONSE")) {
			continue;
		}
		if (h.port == 0) {
			copy_str(ps->local_clock, sizeof ps->local_clock, h.clock);
			ps->have_local = true;
			return;
		}
		if (!first[0]) {
			copy_str(first, sizeof first, h.clock);
		}
		clock_wide |= text_span_eq(h.tlv, "MANAGEMENT") && is_clock_wide(h.id);
	}
	if (first[0] && !clock_wide) {
		copy_str(ps->local_clock, sizeof ps->local_clock, first);
		ps->have_local = true;
		ps->local_guessed = true;
	}
}

static void on_header(parser *ps, text_span line)
{
	end_block(ps);
	header h;
	if (!parse_header(line, &h)) {
		fail(ps, OBS_GARBAGE, "unparseable pmc output: malformed block header");
		return;
	}
	ps->any_header = true;
	ps->kind = BLOCK_SKIP;
	if (!text_span_eq(h.action, "RESPONSE")) {
		return; /* SIGNALING, or an echo of some other action */
	}
	if (!ps->have_local || strcmp(h.clock, ps->local_clock) != 0) {
		if (!ps->first_foreign[0]) {
			copy_str(ps->first_foreign, sizeof ps->first_foreign, h.clock);
		}
		ps->dst->foreign_responses++;
		return;
	}
	if (text_span_eq(h.tlv, "MANAGEMENT_ERROR_STATUS")) {
		ps->error_blocks++;
		note_error_status(ps, h.seq, h.id);
		return;
	}
	if (!text_span_eq(h.tlv, "MANAGEMENT")) {
		return; /* "unknown-tlv", or no TLV at all */
	}
	if (h.id.n == 0) {
		fail(ps, OBS_GARBAGE, "unparseable pmc output: block header without a data set ID");
		return;
	}
	ps->data_blocks++;
	ps->ds = find_dataset(h.id);
	if (!ps->ds) {
		return; /* a data set we do not read (PORT_STATS_NP, empty-tlv, ...) */
	}
	if (ps->ds->per_port) {
		ps->kind = BLOCK_PORT;
		port_init(&ps->port);
		store_text(ps->header_pid, sizeof ps->header_pid, h.pid);
	} else {
		ps->kind = BLOCK_CLOCK;
	}
}

static void on_field(parser *ps, text_span line)
{
	if (ps->kind == BLOCK_NONE) {
		fail(ps, OBS_GARBAGE, "unparseable pmc output: field line outside any block");
		return;
	}
	if (ps->kind == BLOCK_SKIP) {
		return;
	}
	text_span rest = {line.p + 2, line.n - 2};
	text_span name = next_word(&rest);
	text_span value = text_span_trim_space(rest);
	for (size_t i = 0; i < ps->ds->n_fields; i++) {
		const field_spec *f = &ps->ds->fields[i];
		if (!text_span_eq(name, f->name)) {
			continue;
		}
		char *base = ps->kind == BLOCK_CLOCK ? (char *)ps->dst : (char *)&ps->port;
		if (!store_field(f, value, base)) {
			char msg[OBS_ERROR_LEN];
			snprintf(msg, sizeof msg, "unparseable pmc output: %s %s is not a valid number",
				 ps->ds->id, f->name);
			fail(ps, OBS_GARBAGE, msg);
		}
		return;
	}
}

static void on_line(parser *ps, text_span line)
{
	if (text_span_trim_space(line).n == 0) {
		return; /* blank lines carry nothing and end nothing */
	}
	if (text_span_starts(line, "sending:")) {
		on_sending(ps, line);
	} else if (text_span_starts(line, "\t\t")) {
		on_field(ps, line);
	} else if (line.p[0] == '\t') {
		on_header(ps, line);
	} else {
		end_block(ps); /* pmc's own notices ("id ... is too ambiguous"): skipped */
	}
}

static void finish(ptp_obs *dst, obs_state state, const char *msg)
{
	ptp_obs_init(dst);
	dst->state = state;
	copy_str(dst->error, sizeof dst->error, msg);
}

/* The next "bad command" line of *err about a request that is not optional;
 * *err moves past it. */
static bool next_bad_command(text_span *err, text_span *line)
{
	while (find_line(*err, "bad command", line)) {
		size_t used = (size_t)(line->p + line->n - err->p);
		err->p += used;
		err->n -= used;
		if (!optional_request(*line)) {
			return true;
		}
	}
	return false;
}

/* No data came back: say why, from stderr first (pmc itself never fails). */
static void explain_no_data(const tool_output *out, const parser *ps, ptp_obs *dst)
{
	text_span err = {out->err ? out->err : "", out->err ? out->err_len : 0};
	text_span line;
	char msg[OBS_ERROR_LEN];

	if (ps->sending == 0 && find_line(err, "not found", &line)) {
		finish(dst, OBS_TOOL_MISSING, "pmc not found: install linuxptp (pmc lives in /usr/sbin)");
		return;
	}
	if (find_line(err, "Permission denied", &line) ||
	    find_line(err, "Operation not permitted", &line)) {
		char text[80];
		text_span_copy_printable(text, sizeof text, line);
		snprintf(msg, sizeof msg, "pmc needs root to reach ptp4l: run it as root or via sudo -n (%s)",
			 text);
		finish(dst, OBS_PERMISSION_DENIED, msg);
		return;
	}
	text_span rest = err;
	if (next_bad_command(&rest, &line)) {
		char text[100];
		text_span_copy_printable(text, sizeof text, line);
		snprintf(msg, sizeof msg, "pmc rejected the request: %s", text);
		finish(dst, OBS_COMMAND_FAILED, msg);
		return;
	}
	if (ps->error_blocks > 0) {
		char notes[OBS_ERROR_LEN];
		memcpy(notes, dst->error, sizeof notes);
		finish(dst, OBS_NOT_SUPPORTED, notes);
		return;
	}
	if (dst->foreign_responses > 0) {
		/* never the others' data in place of the node's (see the top) */
		snprintf(msg, sizeof msg,
			 "no answer from the node's own ptp4l (none from port 0 on its socket); "
			 "%d answer(s) from other clocks ignored, first %.31s",
			 dst->foreign_responses, ps->first_foreign);
		finish(dst, OBS_DAEMON_UNREACHABLE, msg);
		return;
	}
	if (ps->sending > 0) {
		finish(dst, OBS_DAEMON_UNREACHABLE,
		       "ptp4l did not answer on its management socket: not running, or a different uds_address");
		return;
	}
	text_span sout = {out->out ? out->out : "", out->out ? out->out_len : 0};
	if (all_space(sout)) {
		if (!find_line(err, NULL, &line)) {
			if (out->rc > 0) {
				snprintf(msg, sizeof msg, "pmc printed nothing (exit status %d)", out->rc);
			} else {
				snprintf(msg, sizeof msg, "pmc printed nothing");
			}
			finish(dst, OBS_EMPTY, msg);
			return;
		}
		char text[120];
		text_span_copy_printable(text, sizeof text, line);
		snprintf(msg, sizeof msg, "pmc failed: %s", text);
		finish(dst, OBS_COMMAND_FAILED, msg);
		return;
	}
	finish(dst, OBS_GARBAGE, "unparseable pmc output: no RESPONSE MANAGEMENT block");
}

/* Data came back: mention what stderr says pmc rejected. */
static void note_bad_commands(const tool_output *out, ptp_obs *dst)
{
	text_span err = {out->err ? out->err : "", out->err ? out->err_len : 0};
	text_span line;
	while (next_bad_command(&err, &line)) {
		char text[80];
		text_span_copy_printable(text, sizeof text, line);
		char note[OBS_ERROR_LEN];
		snprintf(note, sizeof note, "pmc %s", text);
		add_note(dst, note);
	}
}

#define REALTIME_TAG "synctop-realtime-ns "

/* "synctop-realtime-ns <which> <ns>": the ns, or PTP_NS_UNKNOWN when the
 * read is not a positive number (a date(1) without %N prints "%N"). */
static int64_t realtime_value(text_span line, const char *which)
{
	text_span rest = {line.p + strlen(REALTIME_TAG), line.n - strlen(REALTIME_TAG)};
	text_span word = next_word(&rest);
	text_span value = text_span_trim_space(rest);
	int64_t v;
	if (!text_span_eq(word, which) || value.n == 0 || value.p[0] == '-' || value.p[0] == '+' ||
	    !parse_number(value, false, false, &v) || v <= 0) {
		return PTP_NS_UNKNOWN;
	}
	return v;
}

/* Takes the collector's realtime lines off pmc's output (see the top): the
 * first line "before", the last "after".  An "after" line cut short is
 * dropped unread (its number may be cut too). */
static text_span take_realtime_lines(text_span t, int64_t *before, int64_t *after)
{
	const char *nl = memchr(t.p, '\n', t.n);
	if (nl && text_span_starts(t, REALTIME_TAG "before ")) {
		*before = realtime_value((text_span){t.p, (size_t)(nl - t.p)}, "before");
		t.n -= (size_t)(nl + 1 - t.p);
		t.p = nl + 1;
	}
	bool terminated = t.n > 0 && t.p[t.n - 1] == '\n';
	size_t end = terminated ? t.n - 1 : t.n;
	size_t start = end;
	while (start > 0 && t.p[start - 1] != '\n') {
		start--;
	}
	text_span last = {t.p + start, end - start};
	if (text_span_starts(last, REALTIME_TAG "after ")) {
		if (terminated) {
			*after = realtime_value(last, "after");
		}
		t.n = start;
	}
	return t;
}

/* line is a beginning of word, or word itself (a line cut short). */
static bool cut_from(text_span line, const char *word)
{
	size_t n = strlen(word);
	return memcmp(line.p, word, line.n < n ? line.n : n) == 0;
}

void pmc_parse(const tool_output *out, ptp_obs *dst)
{
	ptp_obs_init(dst);
	if (out->rc == TOOL_RC_NOT_FOUND) {
		finish(dst, OBS_TOOL_MISSING, "pmc not found (exit 127): install linuxptp (pmc lives in /usr/sbin)");
		return;
	}
	const char *text = out->out ? out->out : "";
	size_t len = out->out ? out->out_len : 0;
	if (len > 0 && memchr(text, '\0', len)) {
		finish(dst, OBS_GARBAGE, "unparseable pmc output: it contains NUL bytes");
		return;
	}

	int64_t realtime_before = PTP_NS_UNKNOWN, realtime_after = PTP_NS_UNKNOWN;
	text_span pmc_text = take_realtime_lines((text_span){text, len}, &realtime_before, &realtime_after);
	text = pmc_text.p;
	len = pmc_text.n;
	tool_output pmc_out = *out; /* pmc's own output, for explain_no_data */
	pmc_out.out = text;
	pmc_out.out_len = len;

	parser state = {.dst = dst, .fail = OBS_OK, .kind = BLOCK_NONE};
	parser *ps = &state;
	find_local_clock(ps, text, len);
	bool cut = false;
	size_t pos = 0;
	while (pos < len && ps->fail == OBS_OK) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t end = nl ? (size_t)(nl - text) : len;
		text_span line = {text + pos, end - pos};
		pos = end + 1;
		if (!nl) {
			/* never parse a partial line: its value may be cut short */
			cut = ps->any_header || ps->sending > 0 || line.p[0] == '\t' ||
			      cut_from(line, "sending:") || cut_from(line, REALTIME_TAG);
			break;
		}
		on_line(ps, line);
	}
	end_block(ps);

	if (ps->fail != OBS_OK) {
		finish(dst, ps->fail, ps->fail_msg);
		return;
	}
	if (cut) {
		finish(dst, OBS_TRUNCATED, "pmc output ends in the middle of a line: the answer was cut off");
		return;
	}
	if (ps->data_blocks == 0) {
		explain_no_data(&pmc_out, ps, dst);
		return;
	}

	dst->state = OBS_OK;
	dst->realtime_before_ns = realtime_before;
	dst->realtime_after_ns = realtime_after;
	if (!dst->clock_identity[0] && ps->have_local) {
		copy_str(dst->clock_identity, sizeof dst->clock_identity, ps->local_clock);
	}
	if (ps->local_guessed && dst->foreign_responses > 0) {
		char note[OBS_ERROR_LEN];
		snprintf(note, sizeof note,
			 "%d answer(s) from other clocks and none from port 0 to tell the node's: "
			 "took the first clock, %.31s",
			 dst->foreign_responses, ps->local_clock);
		add_note(dst, note);
	}
	if (ps->ports_dropped > 0) {
		char note[OBS_ERROR_LEN];
		snprintf(note, sizeof note, "%d more port(s) not kept (limit %d)", ps->ports_dropped,
			 PTP_MAX_PORTS);
		add_note(dst, note);
	}
	note_bad_commands(out, dst);
}
