# lab_prometheus.sh - what the Prometheus labs share (sourced after tap.sh):
# the tools they need, their directory and cleanup, and the server's config.
# Nothing here starts a process.
#
# lab_prom_tools SKIP [TOOL...]
#   prometheus= and exporter= (Debian's prometheus and
#   prometheus-node-exporter), promtool= ("" when missing); SKIP (skip_all,
#   or the test's own function) is called with the reason when one of the
#   two, or a TOOL (promtool, python3, jq, ...), is missing.
# lab_prom_begin
#   tmp= a new directory, pids= "" (the test adds what it starts in the
#   background), and the traps: at exit each of $pids is TERMed and waited
#   for, lab_prom_on_cleanup runs if the test defines it (tmux servers),
#   and $tmp goes.
# lab_prom_config FILE TEXT_PORT
#   a prometheus.yml scraping, every second, the textfile exporter on
#   127.0.0.1:TEXT_PORT (job textfile, honor_labels: one exporter serves many
#   nodes); the test may append more scrape_configs entries.
lab_prom_tools() {
	local skip=$1 tool
	shift
	prometheus=$(command -v prometheus || true)
	promtool=$(command -v promtool || true)
	exporter=$(command -v prometheus-node-exporter || true)
	[ -n "$prometheus" ] && [ -n "$exporter" ] ||
		"$skip" "needs Debian's prometheus and prometheus-node-exporter (build-aux/install-deps test)"
	for tool in "$@"; do
		command -v "$tool" >/dev/null || "$skip" "needs $tool"
	done
}

lab_prom_cleanup() {
	local p
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	if declare -F lab_prom_on_cleanup >/dev/null; then
		lab_prom_on_cleanup
	fi
	rm -rf "$tmp"
}

lab_prom_begin() {
	tmp=$(mktemp -d)
	pids=""
	trap lab_prom_cleanup EXIT
	trap 'exit 130' INT TERM
}

lab_prom_config() {
	cat >"$1" <<EOT
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: textfile
    honor_labels: true
    static_configs:
      - targets: ['127.0.0.1:$2']
EOT
}
