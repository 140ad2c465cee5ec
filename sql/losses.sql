-- losses.sql - `traceql losses`: what is known to be missing.
--   seq_gap              TRACE_SEQ numbers missing in a process's events
--                        (first..last missing), counted per gap; the numbers
--                        are unsigned, one past INT64_MAX stored as its 64-bit
--                        pattern (a negative integer), so they are ordered and
--                        counted as such (u64_gap(): a real in SQL otherwise)
--   tj_dropped           the library's own reports (TRACE_DROPPED), summed per process
--                        (u64_sum(): unsigned, stops at 18446744073709551615)
--                        run: a report without a TRACE_SEQ belongs to the run
--                        of the numbered events before it in time order.
--                        Reports without a pid (a --log file's, the kernel's
--                        ftrace [LOST N EVENTS], xentrace's lost records) are
--                        summed per source, which detail names: two programs'
--                        log files, or one's and the kernel's, are not one
--   journald_suppressed  journald's rate limiting, "Suppressed N messages from UNIT":
--                        its own entries in the journal, and its lines in a
--                        syslog file (systemd-journald's, of no event)
--   syslog_missed        journald's "Forwarding to syslog missed N messages.",
--                        lines a syslog file lacks
--   rsyslog_lost         rsyslog's rate limiting, "NAME: N messages lost due to
--                        rate-limiting" (runtime/ratelimit.c tellLostCnt(), NAME
--                        its input, e.g. imuxsock[pid: 42, ...]), a line of
--                        rsyslogd (rsyslogd-2177 in older versions) in a syslog file
-- A process is (boot, host, pid, identifier) and one run of it (the host
-- tells apart the processes of a central syslog file, whose rows have no
-- boot): a pid reused within a boot restarts TRACE_SEQ, and its two runs
-- must not be merged (their numbers would fill each other's gaps).  A run never repeats a
-- number, so in time order a number seen before means a later run has
-- begun: an event's run is the most times any number up to it was seen
-- before.  (Not "the number fell": a thread that takes a number and is
-- preempted before it reads the clock comes later in time order.)  Events
-- lost after a process's last stored event show only through tj_dropped.
-- An ftrace import's identifier is the TASK of the line, the name of the
-- thread (prctl(PR_SET_NAME)), not of the process: its rows are told apart
-- by pid alone (prog NULL), a gap shows the identifier of the event
-- after it, and a run's tj_dropped reports (which any of its threads
-- writes) are summed together under the identifier of the last one.
WITH named AS (
        SELECT id, boot, host, pid, identifier, seq, time, event, a0,
               CASE WHEN (SELECT kind FROM sources s WHERE s.id = source) = 'ftrace'
                    THEN NULL ELSE identifier END AS prog
        FROM events WHERE pid IS NOT NULL AND (seq IS NOT NULL OR event = 'tj_dropped')
), seen AS (
        SELECT id, boot, host, pid, prog, identifier, seq, time, event, a0,
               CASE WHEN seq IS NULL THEN 0
                    ELSE row_number() OVER (PARTITION BY boot, host, pid, prog, seq
                                            ORDER BY time, id) - 1 END AS again
        FROM named
), runs AS (
        SELECT id, boot, host, pid, prog, identifier, seq, time, event, a0,
               max(again) OVER (PARTITION BY boot, host, pid, prog ORDER BY time, id
                                ROWS UNBOUNDED PRECEDING) AS run
        FROM seen
), ordered AS (
        SELECT boot, host, pid, identifier, seq, time,
               lag(seq) OVER (PARTITION BY boot, host, pid, prog, run ORDER BY seq < 0, seq)
                       AS prev
        FROM runs WHERE seq IS NOT NULL
)
SELECT 'seq_gap' AS kind, boot, host, pid, identifier, u64_gap(prev, seq) AS lost,
       'seq ' || CASE prev WHEN 9223372036854775807 THEN '9223372036854775808'
                           ELSE u64(prev + 1) END
       || '..' || CASE seq WHEN -9223372036854775808 THEN '9223372036854775807'
                           ELSE u64(seq - 1) END AS detail,
       ns_time(time) AS time
FROM ordered WHERE u64_gap(prev, seq) IS NOT NULL
UNION ALL
SELECT 'tj_dropped', boot, host, pid, (SELECT identifier FROM events e WHERE e.id = last),
       lost, reports || ' report' || CASE reports WHEN 1 THEN '' ELSE 's' END, ns_time(time)
FROM (SELECT boot, host, pid, u64_sum(a0) AS lost, count(*) AS reports, max(time) AS time,
             max(id) AS last
      FROM runs WHERE event = 'tj_dropped'
      GROUP BY boot, host, pid, prog, run)
UNION ALL
SELECT 'tj_dropped', boot, host, pid, identifier, u64_sum(a0),
       count(*) || ' report' || CASE count(*) WHEN 1 THEN '' ELSE 's' END || ' in source ' || source,
       ns_time(max(time))
FROM events WHERE event = 'tj_dropped' AND pid IS NULL
GROUP BY boot, host, identifier, source
UNION ALL
SELECT 'journald_suppressed', boot, host, NULL, NULL, count, message, ns_time(time)
FROM journal_suppressed
UNION ALL
SELECT 'journald_suppressed', boot, host, NULL, NULL, CAST(substr(message, 12) AS INTEGER),
       message, ns_time(time)
FROM events WHERE event = '' AND identifier = 'systemd-journald'
        AND message GLOB 'Suppressed [0-9]* messages from *'
UNION ALL
SELECT 'syslog_missed', boot, host, NULL, NULL, CAST(substr(message, 29) AS INTEGER),
       message, ns_time(time)
FROM events WHERE event = '' AND identifier = 'systemd-journald'
        AND message GLOB 'Forwarding to syslog missed [0-9]* messages.'
UNION ALL
SELECT 'rsyslog_lost', boot, host, NULL, NULL,
       CAST(substr(message, length(rtrim(substr(message, 1, instr(message,
               ' messages lost due to rate-limiting') - 1), '0123456789')) + 1) AS INTEGER),
       message, ns_time(time)
FROM events WHERE event = '' AND identifier IN ('rsyslogd', 'rsyslogd-2177')
        AND message GLOB '*: [0-9]* messages lost due to rate-limiting*'
ORDER BY kind, boot, host, pid, time;
