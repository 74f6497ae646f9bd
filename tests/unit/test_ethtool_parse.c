/* test_ethtool_parse.c - ethtool -T parser on captured lab output (ethtool 6.1
 * and 6.14), on outputs of hardware-timestamping NICs transcribed from public
 * documentation (tests/fixtures/nic-docs/, each with a .source.md), and on
 * hostile input. */
#include <config.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "ethtool_parse.h"
#include "fixture.h"

#define SW_ALL (NIC_CAP_SW_TX | NIC_CAP_SW_RX | NIC_CAP_SW_SYSTEM_CLOCK)
#define HW_ALL (NIC_CAP_HW_TX | NIC_CAP_HW_RX | NIC_CAP_HW_RAW_CLOCK)

/* Parse fixture NAME (+ NAME-with-.stderr.txt when present) with exit code rc. */
static void parse_fixture(const char *name, int rc, nic_obs *nic)
{
	char errname[256];
	size_t out_len, err_len;
	char *out = fixture_read(name, &out_len);
	size_t base = strlen(name) - strlen(".txt");
	snprintf(errname, sizeof errname, "%.*s.stderr.txt", (int)base, name);
	char *err = fixture_read_optional(errname, &err_len);
	tool_output t = {out, out_len, err, err_len, rc};
	ethtool_parse(&t, nic);
	free(out);
	free(err);
}

static void parse_text(const char *out, const char *err, int rc, nic_obs *nic)
{
	tool_output t = {out, out ? strlen(out) : 0, err, err ? strlen(err) : 0, rc};
	ethtool_parse(&t, nic);
}

static void test_lab_software_only(void **state)
{
	(void)state;
	static const struct {
		const char *file;
		const char *iface;
		unsigned caps;
	} cases[] = {
		{"ethtool-T-lo.txt", "lo", SW_ALL},
		{"ethtool-T-eth0-virtio.txt", "eth0", SW_ALL},
		{"ethtool-T-veth-in-netns.txt", "eth0", SW_ALL},
		{"ethtool-T-veth-root-side.txt", "vlab1", SW_ALL},
		{"ethtool-T-bridge.txt", "labbr0", NIC_CAP_SW_RX | NIC_CAP_SW_SYSTEM_CLOCK},
		{"ethtool-T-ifb0.txt", "ifb0", NIC_CAP_SW_RX | NIC_CAP_SW_SYSTEM_CLOCK},
		{"ethtool614-T-lo.txt", "lo", SW_ALL},
		{"ethtool614-T-eth0-virtio.txt", "eth0", SW_ALL},
		{"ethtool614-T-veth-in-netns.txt", "eth0", SW_ALL},
		{"ethtool614-T-bridge.txt", "labbr0", NIC_CAP_SW_RX | NIC_CAP_SW_SYSTEM_CLOCK},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		nic_obs nic;
		parse_fixture(cases[i].file, 0, &nic);
		assert_int_equal(nic.state, OBS_OK);
		assert_string_equal(nic.interface, cases[i].iface);
		assert_int_equal(nic.caps, cases[i].caps);
		assert_int_equal(nic.phc_index, NIC_PHC_NONE);
		assert_string_equal(nic.tx_modes, "");
		assert_string_equal(nic.rx_filters, "");
	}
}

static void test_lab_no_such_device(void **state)
{
	(void)state;
	nic_obs nic;
	parse_fixture("ethtool-T-no-such-dev.txt", 1, &nic);
	assert_int_equal(nic.state, OBS_NO_DEVICE);
	assert_non_null(strstr(nic.error, "no device matches name"));
	assert_int_equal(nic.phc_index, NIC_PHC_UNKNOWN);

	parse_fixture("ethtool614-T-no-such-dev.txt", 1, &nic);
	assert_int_equal(nic.state, OBS_NO_DEVICE);
}

static void test_lab_json_rejected(void **state)
{
	(void)state;
	nic_obs nic;
	parse_fixture("ethtool61-json-T-veth.txt", 1, &nic);
	assert_int_equal(nic.state, OBS_COMMAND_FAILED);
	assert_non_null(strstr(nic.error, "exited 1"));
	assert_non_null(strstr(nic.error, "bad command line"));

	parse_fixture("ethtool614-json-T-veth.txt", 1, &nic);
	assert_int_equal(nic.state, OBS_COMMAND_FAILED);
}

static void test_doc_igc(void **state)
{
	(void)state;
	nic_obs nic;
	parse_fixture("nic-docs/igc-ethtool-T.txt", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_string_equal(nic.interface, "enp1s0");
	assert_int_equal(nic.caps, SW_ALL | HW_ALL);
	assert_int_equal(nic.phc_index, 0);
	assert_string_equal(nic.tx_modes, "off on");
	assert_string_equal(nic.rx_filters, "none all");
}

static void test_doc_mvpp2_onestep(void **state)
{
	(void)state;
	nic_obs nic;
	parse_fixture("nic-docs/mvpp2-ethtool-T.txt", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_string_equal(nic.interface, "eth2");
	assert_int_equal(nic.caps, SW_ALL | HW_ALL);
	assert_int_equal(nic.phc_index, 2);
	assert_string_equal(nic.tx_modes, "off on onestep-sync onestep-p2p");
	assert_string_equal(nic.rx_filters, "none all");
}

static void test_doc_netdevsim_empty_caps(void **state)
{
	(void)state;
	nic_obs nic;
	parse_fixture("nic-docs/netdevsim-ethtool-T.txt", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_string_equal(nic.interface, "eni1np1");
	assert_int_equal(nic.caps, 0);
	assert_int_equal(nic.phc_index, 2);
	assert_string_equal(nic.tx_modes, "");
	assert_string_equal(nic.rx_filters, "");
}

static void test_doc_rpi_cm5_no_sw_tx(void **state)
{
	(void)state;
	nic_obs nic;
	parse_fixture("nic-docs/rpi-cm5-ethtool-T.txt", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_int_equal(nic.caps, HW_ALL | NIC_CAP_SW_RX | NIC_CAP_SW_SYSTEM_CLOCK);
	assert_int_equal(nic.phc_index, 0);
	assert_string_equal(nic.tx_modes, "off on onestep-sync onestep-p2p");
	assert_string_equal(nic.rx_filters, "none ptpv2-event");
}

static void test_doc_ioctl_suffix_form(void **state)
{
	(void)state;
	nic_obs nic;
	parse_fixture("nic-docs/rhel6-doc-ethtool-T.txt", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_string_equal(nic.interface, "eth3");
	assert_int_equal(nic.caps, SW_ALL | HW_ALL);
	assert_int_equal(nic.phc_index, 0);
	assert_string_equal(nic.tx_modes, "off on");
	assert_string_equal(nic.rx_filters, "none all");
}

/* Documentation copies often lose the indentation; the values must not. */
static void test_doc_without_indentation(void **state)
{
	(void)state;
	size_t len;
	char *text = fixture_read("nic-docs/rhel6-doc-ethtool-T.txt", &len);
	char *flat = malloc(len + 1);
	assert_non_null(flat);
	size_t n = 0;
	int at_start = 1;
	for (size_t i = 0; i < len; i++) {
		if (at_start && (text[i] == ' ' || text[i] == '\t')) {
			continue;
		}
		at_start = text[i] == '\n';
		flat[n++] = text[i];
	}
	flat[n] = '\0';
	nic_obs nic;
	parse_text(flat, "", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_int_equal(nic.caps, SW_ALL | HW_ALL);
	assert_string_equal(nic.tx_modes, "off on");
	assert_string_equal(nic.rx_filters, "none all");
	free(flat);
	free(text);
}

/* No public capture of the provider-index form was found and this lab has no
 * PHC (lab-notes pitfall 11), so this input is built from ethtool's own
 * format strings (netlink/tsinfo.c: "Hardware timestamp provider index: %u",
 * "... qualifier: %s", "Statistics:" then "  tx_pkts: %llu"). */
static void test_provider_index_form(void **state)
{
	(void)state;
	nic_obs nic;
	parse_text("Time stamping parameters for ens3f0:\n"
		   "Capabilities:\n"
		   "\thardware-transmit\n"
		   "\tsoftware-transmit\n"
		   "\thardware-receive\n"
		   "\tsoftware-receive\n"
		   "\tsoftware-system-clock\n"
		   "\thardware-raw-clock\n"
		   "Hardware timestamp provider index: 3\n"
		   "Hardware timestamp provider qualifier: Precise (IEEE 1588 quality)\n"
		   "Hardware Transmit Timestamp Modes:\n"
		   "\toff\n"
		   "\ton\n"
		   "Hardware Receive Filter Modes:\n"
		   "\tnone\n"
		   "\tall\n"
		   "Statistics:\n"
		   "  tx_pkts: 1234\n"
		   "  tx_lost: 0\n"
		   "  tx_err: 0\n",
		   "", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_string_equal(nic.interface, "ens3f0");
	assert_int_equal(nic.phc_index, 3);
	assert_int_equal(nic.caps, SW_ALL | HW_ALL);
	assert_string_equal(nic.tx_modes, "off on");
	assert_string_equal(nic.rx_filters, "none all");
}

static void test_unknown_names_tolerated(void **state)
{
	(void)state;
	nic_obs nic;
	parse_text("Time stamping parameters for eth9:\n"
		   "Capabilities:\n"
		   "\tsoftware-receive\n"
		   "\tbit17\n"
		   "\topt-id-tcp\n"
		   "PTP Hardware Clock: 7\n"
		   "Some Future Block:\n"
		   "\thardware-transmit\n"
		   "Hardware Transmit Timestamp Modes:\n"
		   "\toff\n"
		   "\tbit9\n"
		   "Hardware Receive Filter Modes: none\n",
		   "", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	/* hardware-transmit under the unknown block must not count */
	assert_int_equal(nic.caps, NIC_CAP_SW_RX);
	assert_int_equal(nic.phc_index, 7);
	assert_string_equal(nic.tx_modes, "off bit9");
	assert_string_equal(nic.rx_filters, "");
}

static void test_errors_by_exit_status_and_stderr(void **state)
{
	(void)state;
	nic_obs nic;

	parse_text("", "sh: 1: ethtool: not found\n", 127, &nic);
	assert_int_equal(nic.state, OBS_TOOL_MISSING);
	assert_non_null(strstr(nic.error, "not found"));

	/* ioctl path: the header reaches stdout before the call fails */
	parse_text("Time stamping parameters for eth0:\n",
		   "Cannot get device time stamping settings: Operation not supported\n", 255, &nic);
	assert_int_equal(nic.state, OBS_NOT_SUPPORTED);

	parse_text("", "netlink error: Operation not supported\n", 1, &nic);
	assert_int_equal(nic.state, OBS_NOT_SUPPORTED);

	parse_text("", "", 0, &nic);
	assert_int_equal(nic.state, OBS_EMPTY);

	parse_text(NULL, NULL, 0, &nic);
	assert_int_equal(nic.state, OBS_EMPTY);

	parse_text(" \n\n", "", 0, &nic);
	assert_int_equal(nic.state, OBS_EMPTY);

	parse_text("", "", 2, &nic);
	assert_int_equal(nic.state, OBS_COMMAND_FAILED);
	assert_string_equal(nic.error, "ethtool exited 2");

	parse_text("hello world\nthis is not ethtool\n", "", 0, &nic);
	assert_int_equal(nic.state, OBS_GARBAGE);
	assert_non_null(strstr(nic.error, "hello world"));
}

static void test_truncated(void **state)
{
	(void)state;
	nic_obs nic;
	parse_text("Time stamping parameters for eth0:\nCapabilities:\n\tsoftware-transmit\n",
		   "", 0, &nic);
	assert_int_equal(nic.state, OBS_TRUNCATED);
	assert_non_null(strstr(nic.error, "PTP clock"));

	parse_text("Time stamping parameters for eth0:\n", "", 0, &nic);
	assert_int_equal(nic.state, OBS_TRUNCATED);

	/* unknown exit status (-1) is not a failure by itself */
	parse_fixture("ethtool-T-lo.txt", -1, &nic);
	assert_int_equal(nic.state, OBS_OK);
}

static void test_lists_are_bounded_whole_words(void **state)
{
	(void)state;
	char text[8192];
	size_t n = (size_t)snprintf(text, sizeof text,
				    "Time stamping parameters for eth0:\nCapabilities:\n"
				    "PTP Hardware Clock: 1\n"
				    "Hardware Transmit Timestamp Modes: none\n"
				    "Hardware Receive Filter Modes:\n");
	for (int i = 0; i < 60; i++) {
		n += (size_t)snprintf(text + n, sizeof text - n, "\tptpv2-l4-delay-req%d\n", i);
	}
	nic_obs nic;
	parse_text(text, "", 0, &nic);
	assert_int_equal(nic.state, OBS_OK);
	size_t len = strlen(nic.rx_filters);
	assert_true(len < sizeof nic.rx_filters);
	assert_true(len > 100);
	/* the last word is complete: it is one of the generated names */
	const char *last = strrchr(nic.rx_filters, ' ');
	assert_non_null(last);
	assert_memory_equal(last + 1, "ptpv2-l4-delay-req", 18);
	assert_true(last[19] >= '0' && last[19] <= '9');
}

static void test_hostile_bytes(void **state)
{
	(void)state;
	/* control characters in the name are neutralised, NULs do not stop the
	 * parser from honouring the length, and the second block is ignored */
	static const char text[] =
		"Time stamping parameters for e\x1b[2Jvil\x01:\n"
		"Capabilities:\n\tsoftware-rec\0eive\n\thardware-transmit\n"
		"PTP Hardware Clock: 99999999999999999999\n"
		"Hardware Transmit Timestamp Modes:\n\to\xffn\n\toff\n"
		"Hardware Receive Filter Modes: none\n"
		"Time stamping parameters for eth1:\n"
		"Capabilities:\n\tsoftware-transmit\n";
	tool_output t = {text, sizeof text - 1, "", 0, 0};
	nic_obs nic;
	ethtool_parse(&t, &nic);
	assert_int_equal(nic.state, OBS_OK);
	assert_string_equal(nic.interface, "e?[2Jvil?");
	assert_int_equal(nic.caps, NIC_CAP_HW_TX);
	assert_int_equal(nic.phc_index, NIC_PHC_UNKNOWN);
	assert_string_equal(nic.tx_modes, "off");

	/* one huge line with no newline at all */
	size_t big = 1 << 20;
	char *junk = malloc(big);
	assert_non_null(junk);
	for (size_t i = 0; i < big; i++) {
		junk[i] = (char)(i * 7 + 1);
	}
	tool_output j = {junk, big, junk, big, 0};
	ethtool_parse(&j, &nic);
	assert_int_equal(nic.state, OBS_GARBAGE);
	for (size_t i = 0; nic.error[i]; i++) {
		assert_true(nic.error[i] >= 0x20 && nic.error[i] < 0x7f);
	}
	free(junk);

	/* a name longer than the field is cut, never overflowed */
	char longname[512];
	memset(longname, 'x', sizeof longname);
	memcpy(longname, "Time stamping parameters for ", 29);
	memcpy(longname + sizeof longname - 2, ":\n", 2);
	tool_output l = {longname, sizeof longname, NULL, 0, 0};
	ethtool_parse(&l, &nic);
	assert_int_equal(nic.state, OBS_TRUNCATED);
	assert_int_equal(strlen(nic.interface), sizeof nic.interface - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lab_software_only),
		cmocka_unit_test(test_lab_no_such_device),
		cmocka_unit_test(test_lab_json_rejected),
		cmocka_unit_test(test_doc_igc),
		cmocka_unit_test(test_doc_mvpp2_onestep),
		cmocka_unit_test(test_doc_netdevsim_empty_caps),
		cmocka_unit_test(test_doc_rpi_cm5_no_sw_tx),
		cmocka_unit_test(test_doc_ioctl_suffix_form),
		cmocka_unit_test(test_doc_without_indentation),
		cmocka_unit_test(test_provider_index_form),
		cmocka_unit_test(test_unknown_names_tolerated),
		cmocka_unit_test(test_errors_by_exit_status_and_stderr),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_lists_are_bounded_whole_words),
		cmocka_unit_test(test_hostile_bytes),
	};
	return cmocka_run_group_tests_name("ethtool_parse", tests, NULL, NULL);
}
