//! A snapshot of the process table, read from `/proc`.
//!
//! Only the few fields the descendant walk needs are parsed. A process that
//! vanishes while the table is read is simply missing from the snapshot.

use std::io::Read;

/// One process as `/proc/<pid>/stat` described it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ProcInfo {
    /// Its pid.
    pub pid: i32,
    /// Its parent's pid.
    pub ppid: i32,
    /// Its process group.
    pub pgid: i32,
    /// Its session.
    pub sid: i32,
    /// When it started, in clock ticks since boot: with the pid, it names
    /// the process even if the pid is later reused.
    pub start: u64,
    /// It has exited and waits to be reaped.
    pub zombie: bool,
}

/// Every process this process can see, or `None` if `/proc` cannot be read.
pub(super) fn snapshot() -> Option<Vec<ProcInfo>> {
    let dir = std::fs::read_dir("/proc").ok()?;
    let mut procs = Vec::new();
    for entry in dir.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(|s| s.parse::<i32>().ok()) else {
            continue;
        };
        if let Some(info) = stat(pid) {
            procs.push(info);
        }
    }
    Some(procs)
}

/// One process, if it exists.
pub(super) fn stat(pid: i32) -> Option<ProcInfo> {
    // A stat line is well under 1 KiB; the command name is at most 16 bytes.
    let mut buf = [0u8; 1024];
    let mut file = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    parse_stat(pid, &buf[..len])
}

/// Parses a `/proc/<pid>/stat` line. The command name, in parentheses, may
/// itself hold spaces and parentheses, so the fields are counted from the
/// last `)`. The name is any bytes a process chose (not always UTF-8), so
/// only the fields after it, which are ASCII, are decoded.
fn parse_stat(pid: i32, line: &[u8]) -> Option<ProcInfo> {
    let close = line.iter().rposition(|b| *b == b')')?;
    let rest = std::str::from_utf8(&line[close + 1..]).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgid = fields.next()?.parse().ok()?;
    let sid = fields.next()?.parse().ok()?;
    // After the session come 15 fields up to `starttime` (field 22 of
    // proc(5)): tty_nr … itrealvalue.
    let start = fields.nth(15)?.parse().ok()?;
    Some(ProcInfo {
        pid,
        ppid,
        pgid,
        sid,
        start,
        zombie: state == "Z" || state == "X",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_a_stat_line_with_a_hostile_command_name() {
        let line = "4242 (a) b (c) R 1 4242 4240 34816 4242 4194304 95 0 0 0 0 0 0 0 20 0 1 0 987654 8192 200 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0";
        let p = parse_stat(4242, line.as_bytes()).unwrap();
        assert_eq!(
            p,
            ProcInfo {
                pid: 4242,
                ppid: 1,
                pgid: 4242,
                sid: 4240,
                start: 987_654,
                zombie: false
            }
        );
    }

    #[test]
    fn a_command_name_that_is_not_utf8_is_parsed() {
        let line = b"9 (\xff\xfe) S 1 9 9 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 77 0 0";
        let p = parse_stat(9, line).unwrap();
        assert_eq!((p.ppid, p.pgid, p.start), (1, 9, 77));
    }

    #[test]
    fn a_zombie_is_marked() {
        let line = "7 (sh) Z 3 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 55 0 0";
        assert!(parse_stat(7, line.as_bytes()).unwrap().zombie);
    }

    #[test]
    fn a_truncated_line_is_none() {
        assert_eq!(parse_stat(7, b"7 (sh) S 1 7"), None);
        assert_eq!(parse_stat(7, b"garbage"), None);
    }

    #[test]
    fn this_process_is_in_the_snapshot() {
        let me = i32::try_from(std::process::id()).unwrap();
        let procs = snapshot().unwrap();
        let mine = procs.iter().find(|p| p.pid == me).unwrap();
        assert_eq!(Some(*mine).map(|p| p.pid), stat(me).map(|p| p.pid));
    }
}
