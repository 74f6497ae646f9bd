# polls.awk - poll accounting for one steady-state run, from synctop's --log.
#
#   awk -v t0=EPOCH -v t1=EPOCH -v interval=SEC -v nodes=N -v rtts=FILE -f polls.awk LOG
#
# The log has one line per completed poll,
#   2026-12-02T13:02:52.123456Z node0001: poll complete rtt_s=0.012345 bytes=6789 due=T sent=T
# one per due time dropped because the previous poll had not even been sent,
#   ... node0001: poll skipped due=T (...)
# and one line per connection event (connecting, deadline, lost, ...).  A
# poll is sent when its node's repeating timer fires (the due time), or later
# if the previous poll was still running then.  due= is the loop time the
# timer fired (the due time plus the loop's lag); logs of older synctops
# without it are served by the reconstruction below, from completion - rtt.  A node's timer keeps one phase (libev
# repeat timer: the next due time is the last one plus the interval), and a
# poll is never sent before its due time: sent = completion time - rtt is
# the due time plus the event loop's lag (the log's wall clock is a little
# ahead of libev's cached loop time, which only adds to the lag), or later
# if it waited for the previous poll.  So the phase is the earliest send
# offset (sent mod interval) among the node's timer-driven sends: those
# within a quarter interval of the median offset; sends that waited for a
# slow previous poll are spread out and left aside.
#
# Every due time in [t0, t1 - interval] is a slot (it had a full interval to
# finish before t1).  A slot is served by the first poll sent at or after it
# and before the next due time, on time if that poll completed within one
# interval of the due time, and missed if no poll was sent for it (synctop
# drops a due time that passes while the previous poll is still running).
# A node that never answered in the window counts all its slots as missed.
#
# Prints one line of key=value pairs; writes each window poll's rtt to FILE.

function days_from_civil(y, m, d,    era, yoe, doy, doe) {
	y -= (m <= 2)
	era = int((y >= 0 ? y : y - 399) / 400)
	yoe = y - era * 400
	doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1
	doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
	return era * 146097 + doe - 719468
}

# "2026-12-02T13:02:52.123456Z" -> seconds since the epoch (UTC)
function epoch(ts) {
	return days_from_civil(substr(ts, 1, 4) + 0, substr(ts, 6, 2) + 0, substr(ts, 9, 2) + 0) * 86400 \
		+ substr(ts, 12, 2) * 3600 + substr(ts, 15, 2) * 60 + substr(ts, 18, 9)
}

function floor_(x,    i) {
	i = int(x)
	return (i > x) ? i - 1 : i
}

function ceil_(x,    i) {
	i = int(x)
	return (i < x) ? i + 1 : i
}

# insertion sort of a[1..n] (n is small: one node's polls in the window)
function sort_(a, n,    i, j, v) {
	for (i = 2; i <= n; i++) {
		v = a[i]
		for (j = i - 1; j >= 1 && a[j] > v; j--) {
			a[j + 1] = a[j]
		}
		a[j + 1] = v
	}
}

$1 ~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T/ && $2 ~ /:$/ {
	t = epoch($1)
	host = substr($2, 1, length($2) - 1)
	if ($3 == "poll" && $4 == "complete" && $5 ~ /^rtt_s=/) {
		rtt = substr($5, 7) + 0
		sent = t - rtt
		if ($7 ~ /^due=/) {
			sent = substr($7, 5) + 0
		}
		if (t >= t0 && t <= t1) {
			polls++
			print rtt > rtts
		}
		# polls just outside the window can still serve a slot inside it
		if (t >= t0 - interval && t <= t1 + interval) {
			k = ++n_polls[host]
			done_at[host, k] = t
			sent_at[host, k] = sent
		}
	} else if ($3 == "poll" && $4 == "skipped") {
		if (t >= t0 && t <= t1) {
			skipped++
		}
	} else if ($3 == "clock" && $4 == "check") {
		if (t >= t0 && t <= t1) {
			clock_checks++
		}
	} else if (t >= t0 && t <= t1 && host != "synctop") {
		events++
	}
}

END {
	n_slots_full = floor_((t1 - t0) / interval)
	for (host in n_polls) {
		# send offsets from the first send, folded into (-interval/2,
		# interval/2]; then folded again around their median, so the
		# cluster of timer-driven sends does not straddle the fold
		ref = sent_at[host, 1]
		n = n_polls[host]
		for (k = 1; k <= n; k++) {
			d = sent_at[host, k] - ref
			d -= interval * floor_(d / interval + 0.5)
			off[k] = d
		}
		sort_(off, n)
		med = (n % 2) ? off[(n + 1) / 2] : (off[n / 2] + off[n / 2 + 1]) / 2
		best = ""
		for (k = 1; k <= n; k++) {
			d = off[k] - med
			d -= interval * floor_(d / interval + 0.5)
			if (d >= -0.25 * interval && d <= 0.25 * interval && (best == "" || d < best)) {
				best = d
			}
		}
		phase = ref + med + best
		j0 = ceil_((t0 - phase) / interval)
		j1 = floor_((t1 - interval - phase) / interval)
		if (j1 < j0) {
			continue
		}
		seen_hosts++
		slots += j1 - j0 + 1
		for (k = 1; k <= n; k++) {
			# 1 us: the phase is one of the sends themselves
			j = floor_((sent_at[host, k] - phase + 1e-6) / interval)
			if (j < j0 || j > j1 || ((host, j) in served)) {
				continue
			}
			served[host, j] = 1
			n_served++
			if (done_at[host, k] - (phase + j * interval) <= interval) {
				ontime++
			}
		}
	}
	# nodes that did not complete a single poll near the window
	if (nodes > seen_hosts) {
		slots += (nodes - seen_hosts) * n_slots_full
	}
	printf "polls=%d slots=%d ontime=%d late=%d missed=%d events=%d hosts=%d skipped=%d clock_checks=%d\n", \
		polls, slots, ontime, n_served - ontime, slots - n_served, events, seen_hosts, skipped, clock_checks
}
