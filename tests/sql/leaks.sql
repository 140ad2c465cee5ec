-- args: --format table -
-- Correlating by a pointer: buffers allocated and never freed, per process.
SELECT m.pid, ptr(m.ptr) AS ptr, m.size
FROM qemu_vmalloc m
WHERE NOT EXISTS (SELECT 1 FROM qemu_vfree f
                  WHERE f.ptr = m.ptr AND f.pid = m.pid AND f.seq > m.seq)
ORDER BY m.pid, m.seq;
