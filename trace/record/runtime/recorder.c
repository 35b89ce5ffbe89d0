// seer's recording race runtime.
//
// This file implements every __tsan_* function that Go's runtime/race.go
// declares. Built with -race, the Go compiler calls them on every memory
// access and function entry, and the runtime and package sync call them at
// every synchronisation. ThreadSanitizer's implementation detects races;
// this one records what happened into a spool file, and seer predicts from
// the recording (see ../doc.go).
//
// # The spool
//
// The spool is a sparse file mapped MAP_SHARED, so every record reaches the
// file the moment it is written to memory: a test that panics, calls
// os.Exit, times out or is killed leaves every complete record behind.
//
//	[0, 4096)                 spool header (struct spool_header)
//	[4096, 4096+MALLOC_BYTES) the allocation region: fixed 24-byte records of
//	                          malloc/free, appended through an atomic index
//	[TABLE_OFF, RING_OFF)     the chunk table: u32 per chunk handed out, 1 +
//	                          the slot that holds it (0: not yet published)
//	[RING_OFF, CHUNKS_OFF)    the free ring: u32 slots the reader gave back
//	[CHUNKS_OFF, ...)         4 KiB slots of chunks: chunk 0.. are handed
//	                          out by an atomic counter; each belongs to one
//	                          goroutine (or to the symbol table, gid SYM_GID)
//	                          and is written to the slot the table names
//
// A chunk is [u32 gid][u32 used][records...]; `used` is published after the
// record's words, so a reader never sees a half-written record. Records are
// 8-byte words; the first word is (payload << 8) | kind. Events that carry
// a sequence number take it from one global atomic counter, so the reader
// can merge goroutines back into the order things happened; for
// synchronisation that order is the real one, because the runtime calls us
// inside its own critical sections, and for atomics because we perform the
// operation and take the number under one per-address lock (a load checks
// the lock's version instead: see "atomics").
//
// # Recycling
//
// Writing to a page of the spool that was never written costs the kernel
// a fresh page of the file, zeroed: on TLS handshakes that led the
// recorder's CPU (bench/RESULTS.md, branch rec). So chunks are numbered apart from
// the slots that hold them. A live reader that has read (or copied out)
// every record of a finished chunk may give its slot back: it appends 1 +
// the slot to the free ring (hdr->ring_tail), and new_chunk takes a slot
// from the ring before a fresh one (hdr->next_slot), so the recorder
// writes to pages already in the page cache. A slot is given back only after
// everything in it was read, so a run stopped or killed still leaves every
// record the reader has not read in the spool; a reader that does not
// recycle (the spool is kept, or read after the run) leaves every chunk in
// a slot of its own. The table's entry is stored after the chunk's header,
// so a reader that sees the entry sees the header.
//
// No lock is taken on the path of plain reads and writes: a goroutine runs on
// one thread at a time and only appends to its own chunk.
//
// # Reading while recording
//
// seer converts the spool while the test runs (../spool.go), so it must
// know which sequence numbers are final: a watermark W such that every
// record numbered below W is committed. The counter lives in the header
// (hdr->seq), and a record is written as: reserve (which marks the chunk's
// used word busy, USED_BUSY), take the number, write, commit (used, busy
// cleared). The reader loads the counter C first, then next_chunk, then
// each goroutine's last chunk's used word. A record numbered up to C took
// its number after its busy mark, its chunk's gid and table entry, which
// the counter's read-modify-write publishes, so the reader sees that chunk and either
// the record committed or the mark; a goroutine found busy holds W at one
// past its last number the reader has. Allocation records are marked
// R_ALLOC_BUSY the same way before they take their number. A record that
// could not be kept (the spool full), or the event cap reached (see
// "Stopping at the event cap"), sets hdr->cut; the reader advances
// no further once next_chunk or next_malloc reaches its bound, since a cut
// it cannot see yet may be under C. Symbol chunks have gid SYM_GID; gid 0
// is a chunk whose header is not written yet.
//
// A record still busy when the process is gone was never finished: the
// process exited (or was killed) while its thread was between the busy
// mark and the commit, often descheduled there. Its operation is lost with
// it, which is harmless for every record but an atomic's: the other hooks
// record before their operation takes effect, or after an acquire that
// nothing else sees, but an atomic store, read-modify-write or successful
// compare-and-swap is done, and seen by the atomics that take its
// address's lock next, before its record is written. (Go's race suite's
// TestNoRaceAtomicCASLoadInt32 lost its goroutine's compare-and-swap so,
// when the test ended while the goroutine's thread was descheduled, and
// the converted run showed a load of a value no store had written, and a
// race the test does not have.) So such an atomic writes its record's
// first words, its caller pc as its only frame, and marks the used word
// USED_PENDING, before it lets go of the address's lock (atomic_pending): a
// reader that finds the mark after the process is gone takes that
// record, without the rest of its frames.
//
// # Stacks
//
// Plain accesses carry the pc of the access; __tsan_func_enter/exit records
// give the reader the call stack. Synchronisation annotations carry no pc,
// so the trampolines below pass the goroutine's frame pointer (racecall
// leaves the Go BP untouched) and we record the first return addresses of
// the Go frame-pointer chain. Every pc is symbolised once, on first sight,
// through the runtime's own callback (raceSymbolizeCodeCmd, which expands
// inlined frames), and the frames are written to symbol chunks.

#define _GNU_SOURCE // pthread_setname_np
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef uintptr_t uptr;

#define SPOOL_MAGIC 0x4c4f4f5052454553ULL /* "SEERPOOL" */
#define SPOOL_VERSION 6
#define HEADER_BYTES 4096ULL
#define MALLOC_BYTES (4ULL << 30)
#define CHUNK_BYTES 4096ULL
#define TABLE_OFF (HEADER_BYTES + MALLOC_BYTES)
#define TABLE_BYTES (64ULL << 20) /* a u32 for each of MAX_CHUNKS */
#define RING_OFF (TABLE_OFF + TABLE_BYTES)
#define RING_SLOTS (1ULL << 16)
#define CHUNKS_OFF (RING_OFF + RING_SLOTS * 4)
#define SPOOL_BYTES (64ULL << 30)
#define MAX_CHUNKS ((SPOOL_BYTES - CHUNKS_OFF) / CHUNK_BYTES)
_Static_assert(TABLE_BYTES / 4 >= MAX_CHUNKS, "the chunk table holds an entry for every chunk");
#define CHUNK_HDR 8
#define MAX_SYNC_PCS 12
#define MAX_ATOMIC_PCS 4
#define SYM_GID 0xffffffffu     /* the gid of symbol chunks */
#define USED_BUSY 0x80000000u   /* in a chunk's used word: a record is being written */
#define USED_PENDING 0x40000000u /* with USED_BUSY: it is an atomic that took effect (see "Reading while recording") */

enum {
	R_ENTER = 1,        // pc<<8 (pc | ENTER_SYNTH for __tsan_read_pc's and __tsan_write_pc's)
	R_EXIT = 2,         //
	R_READ = 3,         // seq<<8, addr, pc<<8|size
	R_WRITE = 4,        // seq<<8, addr, pc<<8|size
	R_READ_RANGE = 5,   // seq<<8, addr, size, pc
	R_WRITE_RANGE = 6,  // seq<<8, addr, size, pc
	R_ACQUIRE = 7,      // seq<<8, addr, parked<<32|n, pcs[n]; parked: 0 own, else 1+n2 and the last n2 pcs are the parked goroutine's
	R_RELEASE = 8,      // same
	R_RELEASE_MERGE = 9,
	R_RELEASE_ACQUIRE = 10,
	R_ATOMIC = 11,      // seq<<8, addr, op<<16|flags<<8|size, value, old, n, pcs[n] (caller pc, then the Go frame chain)
	R_GO = 12,          // seq<<8, child gid, pc
	R_START = 13,       // seq<<8, parent gid
	R_END = 14,         // seq<<8
	R_SYM = 15,         // pc<<8, depth<<32|line (depth|SYM_LAST for the last frame), lens (funclen<<16|filelen), bytes...
	R_MALLOC = 16,      // seq<<8, addr, size   (allocation region only)
	R_FREE = 17,        // seq<<8, addr, size   (allocation region only)
	R_FINI = 18,        // seq<<8               (spool header flag instead)
	R_FINGO = 19,       // seq<<8               (finalizers or cleanups about to run)
	R_ALLOC_BUSY = 20,  //                      (allocation region: a record being written)
	R_READ2 = 21,       // seq<<24|(pc&0xffff)<<8, addr|(pc>>16)<<47: R_READ of size 1 in two words (see "Plain accesses in two words")
	R_WRITE2 = 22,      // the same for R_WRITE
};

enum { A_LOAD = 1, A_STORE, A_SWAP, A_ADD, A_AND, A_OR, A_CAS };
enum { AF_NOSYNC = 1, AF_FAILED = 2 };

struct spool_header {
	uint64_t magic;
	uint32_t version;
	uint32_t chunk_bytes;
	uint64_t chunks_off;
	uint64_t malloc_bytes;
	uint64_t next_chunk;   // chunks handed out
	uint64_t next_malloc;  // allocation records handed out
	uint64_t fini;         // set by __tsan_fini
	uint64_t overflow;     // records dropped because the spool was full
	uint64_t pid;
	uint32_t ptr_size;
	uint32_t pad;
	uint64_t cut;          // if not 0: the last sequence number every record of which was kept
	uint64_t max_chunks;   // chunks the spool may hand out (SEER_SPOOL_CHUNKS)
	uint64_t table_off;    // the chunk table (see "Recycling")
	uint64_t ring_off;     // the free ring
	uint64_t ring_slots;
	uint64_t next_slot;    // fresh slots handed out
	uint64_t ring_head;    // free ring entries taken (the recorder's)
	uint64_t ring_tail;    // free ring entries given (the reader's)
	uint64_t pad3[14];
	uint64_t seq;          // the sequence counter, at offset 256 (its own cache line)
};

struct gctx {
	uint32_t gid;
	uint32_t ignore;   // go_ignore_sync nesting
	uint8_t *chunk;    // current chunk, or NULL
	uint32_t used;     // bytes used in chunk after the header
	uint32_t reused;   // chunk is in a slot the reader gave back
	uint32_t system;   // runs on g0 (scheduler, timers): never call back into Go
	uptr *gp;          // the goroutine's runtime g, as its last function entry saw it
	uint8_t *entered;  // just past its last R_ENTER record (access_range)
	// Replay (see "Replay" below); unused when not replaying.
	int32_t slot;      // the schedule's goroutine this is, or -1
	uint32_t nchild;   // go statements run so far
	uint32_t ord;      // countable records made so far
	uint32_t next;     // index of its next step in its slot's step list
	uint32_t holding;  // 1 + the step whose turn it holds, or 0
	uint32_t inop;     // 1 + the step it has taken and not ended, or 0
	uint32_t armed;    // its next step is taken at its next hook
	uint32_t skip;     // atomics to let pass before that
	uint32_t started;  // made a record since it started
	uint32_t nrec;     // records made (progress, for stall detection)
	// Steering (see "Steering" below); unused when not exploring.
	uint64_t ex_path;    // hash of its creation path, or 0 (not named)
	uint64_t ex_prio;    // PCT priority
	uint32_t ex_nchild;  // go statements run so far that name a child
	uint32_t ex_ord;     // countable records made so far
	uint32_t ex_armed;   // it made a synchronisation: steer at its next countable record
	uint32_t ex_di, ex_dn; // its delays: ex_delays[ex_di .. ex_dn)
	uint32_t ex_tick;    // hooks made (progress, seen by PCT's waiters)
	uint32_t ex_waiting; // waiting at a steering point
	uint32_t ex_ended;
	uint32_t ex_started; // made a hook since it started
	// The event cap (see "Stopping at the event cap").
	uint32_t evs;      // records since its last count_flush that surely make an event
	uint32_t ended;    // go_end ran: the converter makes no event of a later record
	uptr last_sync;    // the address of its last synchronisation record
};

static uint8_t *spool;       // the mapping, or NULL when not recording
static struct spool_header *hdr;
static void (*callback)(uptr cmd, void *ctx);
static uint64_t seq_counter __attribute__((aligned(64)));
static uint64_t *seq_ptr = &seq_counter; // hdr->seq once the spool is open
static uint32_t gid_counter __attribute__((aligned(64)));
static volatile int sym_lock __attribute__((aligned(64)));
static struct gctx sym_ctx; // symbol chunks (gid SYM_GID)
static uint32_t atomic_locks[4096] __attribute__((aligned(64))); // versions (see "atomics")
static uint64_t *seen_pcs; // open-addressing set of symbolised pcs
#define SEEN_BITS 22
#define SEEN_SIZE (1ULL << SEEN_BITS)
static uint8_t *seen_bits; // a bit for each pc below SEEN_BITS_LIMIT, or NULL (see seen)
#define SEEN_BITS_LIMIT (1ULL << 32)

static inline uint64_t next_seq(void) {
	return __atomic_add_fetch(seq_ptr, 1, __ATOMIC_SEQ_CST);
}

// max_chunks bounds the spool (SEER_SPOOL_CHUNKS, else all of it).
static uint64_t max_chunks;

// cut_here records, the first time a record cannot be kept (the spool or
// its allocation region is full) or the event cap is reached (count_flush),
// the last sequence number handed out so far. Every record numbered up to it was kept (a record takes its number
// after its room), so the records up to it are a prefix of the run, which
// is what the converter keeps: a goroutine with room left in its chunk
// goes on writing, but nothing after the cut is used.
//
// Once cut, recording stops (stopped): nothing after the cut is used, and
// a test that goes on for minutes past the cap must neither pay for
// recording it nor grow the spool. Symbols are still written, as kept
// records may name pcs that are symbolised after the cut.
static int stopped;

static void cut_here(void) {
	uint64_t zero = 0, now = __atomic_load_n(seq_ptr, __ATOMIC_SEQ_CST);
	__atomic_compare_exchange_n(&hdr->cut, &zero, now ? now : 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
	__atomic_store_n(&stopped, 1, __ATOMIC_SEQ_CST); // after the counter's read: see past_cut
}

// ---- stopping at the event cap ----
//
// The converter stops at the cap (RecordOptions.MaxEvents): once the
// records it has visited, in sequence order, have made that many events
// (trace/convert.go's stop counts every event made, kept, settled or held
// in the side log). Whatever the test records past that point costs the
// run (the records written, their pages provisioned) and is never read
// (bench/RESULTS.md, branches conv6 and reccap). So the recorder cuts the run
// itself (cut_here) once the records already numbered surely make
// SEER_EVENT_CAP events.
//
// Each goroutine counts, in gctx.evs, a lower bound of the events its
// records make, by kind, from what convert.go's visit does with them:
//   - a plain access (R_READ, R_WRITE and their two-word and range forms):
//     one event (access: to the table, or held in the side log);
//   - R_GO, R_START, R_END: one event each (the goroutine's records after
//     its R_END make none, so go_end's ended stops its count);
//   - a synchronisation record: one event (sync), but for the second
//     acquire of RWMutex.Lock, which the converter folds into the first
//     (rwPending): an acquire at the address 4 below its goroutine's
//     previous synchronisation record's counts none. sync/rwmutex.go's
//     Lock and TryLock make the two acquires one after the other, with
//     nothing between them, so every acquire the converter folds follows
//     its first at addr+4 so;
//   - an atomic: none (the converter drops those inside sync's
//     primitives by their frames, atomicClass; the recorder knows only
//     the part it leaves unrecorded, recorderDrops, see "atomics the
//     converter drops", and of a recorded atomic cannot tell whether it
//     makes an event), nor R_FINGO, allocation records, entries and
//     exits.
// A goroutine adds its count to events_counted once per chunk (when it
// takes a new one, and when it ends), not once per record. Every record
// counted there was numbered before it was counted, so when the sum
// reaches the cap, cut_here's number is at or past every record counted:
// the records up to the cut make at least the cap's events, and the
// converter stops at the cap before it reaches the cut, on the same
// records as without it. Counts still in other goroutines' chunks only
// make the cut later. The trace is then the one the cap gives without
// the recorder's stop (trace/record_evcap_test.go checks it).

// ATOMIC_DROP_ENV (record.AtomicDropEnv) "1": atomics the converter
// drops are not recorded (see "atomics the converter drops").
#define ATOMIC_DROP_ENV "SEER_ATOMIC_DROP"
static int atomic_drop_on;
static uint64_t event_cap; // SEER_EVENT_CAP, or 0: no stop at the cap
static uint64_t events_counted __attribute__((aligned(64)));

static inline void count_event(struct gctx *g) {
	if (!g->ended)
		g->evs++;
}

// count_flush adds g's count to events_counted, and cuts the run once
// that reaches the cap.
static void count_flush(struct gctx *g) {
	uint32_t n = g->evs;
	g->evs = 0;
	if (n && event_cap && __atomic_add_fetch(&events_counted, n, __ATOMIC_SEQ_CST) >= event_cap)
		cut_here();
}

static inline void cpu_relax(void) {
#if defined(__x86_64__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static inline void spin_lock(volatile int *l) {
	while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(l, __ATOMIC_RELAXED))
			cpu_relax();
	}
}

static inline void spin_unlock(volatile int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

// ---- chunk allocation and appending ----

// Faulting spool pages in one at a time costs more than writing them
// (under virtualisation, much more), so the thread that first crosses into
// a 2 MiB region of chunks populates the next region with one call.
#define POPULATE_BYTES (2ULL << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

// An area of the spool that is faulted in region by region ahead of its
// writers: the chunk slots, and the allocation records.
struct area {
	uint8_t *base;
	uint64_t limit; // its bytes
	uint64_t done;  // the helper has faulted in its regions up to here
};
static struct area chunk_area, malloc_area;
static int ahead_on; // the helper runs (see "Faulting in ahead")

static void ahead_wake(void);

// populate faults in the region of a at off, which a writer is about to
// need, unless the helper has.
static void populate(struct area *a, uint64_t off) {
	if (off % POPULATE_BYTES != 0 || off + POPULATE_BYTES > a->limit)
		return;
	if (ahead_on) {
		ahead_wake();
		if (__atomic_load_n(&a->done, __ATOMIC_ACQUIRE) >= off + POPULATE_BYTES)
			return;
	}
	madvise(a->base + off, POPULATE_BYTES, MADV_POPULATE_WRITE); // best effort
}

// A process that writes a spool of a gigabyte should not hold it: the
// pages of a 2 MiB region of slots are given back (they stay in the file)
// once every chunk first written to the region is finished, that is
// replaced by a new chunk or left by a goroutine that ended; allocation
// records likewise, by 6 MiB (a whole number of records). A slot the
// reader gives back faults in again from the page cache, which costs far
// less than a fresh page, and a reader that falls behind leaves the
// process holding no more than it did.
#define RELEASE_CHUNKS (POPULATE_BYTES / CHUNK_BYTES)
#define RELEASE_MALLOCS ((3 * POPULATE_BYTES) / 24)
static uint16_t chunks_done[MAX_CHUNKS / RELEASE_CHUNKS + 1];
static uint32_t mallocs_done[MALLOC_BYTES / (3 * POPULATE_BYTES) + 1];

// chunk_done notes that g's chunk is finished.
static void chunk_done(struct gctx *g) {
	uint8_t *c = g->chunk;
	if (!c || c < spool + CHUNKS_OFF || g->reused)
		return;
	uint64_t r = (uint64_t)(c - spool - CHUNKS_OFF) / CHUNK_BYTES / RELEASE_CHUNKS;
	if (__atomic_add_fetch(&chunks_done[r], 1, __ATOMIC_ACQ_REL) == RELEASE_CHUNKS)
		madvise(spool + CHUNKS_OFF + r * POPULATE_BYTES, POPULATE_BYTES, MADV_DONTNEED);
}

static void malloc_done(uint64_t i) {
	uint64_t r = i / RELEASE_MALLOCS;
	if (__atomic_add_fetch(&mallocs_done[r], 1, __ATOMIC_ACQ_REL) == RELEASE_MALLOCS)
		madvise(spool + HEADER_BYTES + r * 3 * POPULATE_BYTES, 3 * POPULATE_BYTES, MADV_DONTNEED);
}

// ---- faulting in ahead ----
//
// A fresh page of the spool costs the kernel a page of the file, zeroed,
// and the file system's bookkeeping, and the writer that first touches it
// waits for all that: on TLS handshakes and Go's race suite it was the
// larger part of the recorded test's own time, twice what the records
// themselves cost (bench/RESULTS.md, branch rec), and a test that times
// its own steps (yamux's 25 ms stream-open timeout) fails under recording
// where it passes under the race detector. So a helper thread, started
// with the spool, faults in the regions of each area up to AHEAD_BYTES
// past its writers (the last fresh slot handed out, the last allocation
// record), on a core the test leaves idle, and a writer that crosses into
// a region finds its pages mapped. The writers wake the helper as they
// cross; a region the helper has not done yet (it fell behind) the writer
// faults in itself, as it did without it. Faulting in changes no byte of
// the file, so the helper never has to agree with the writers about a
// page, only about how far to go. It never calls into Go, and every
// signal is blocked in it, so that the runtime's signals go to its own
// threads. Like ThreadSanitizer's background thread, it is the race
// runtime's own.
#define AHEAD_BYTES (8ULL << 20)

static uint32_t ahead_word __attribute__((aligned(64))); // futex: bumped by writers crossing a region

static void ahead_wake(void) {
	__atomic_add_fetch(&ahead_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &ahead_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

// ahead_step faults in the next region of a, if its writers, with used
// bytes written, are less than AHEAD_BYTES behind it, and says whether it
// did. Regions the writers have entered they faulted in themselves, with
// the one after.
static int ahead_step(struct area *a, uint64_t used) {
	uint64_t entered = used ? ((used - 1) / POPULATE_BYTES + 1) * POPULATE_BYTES : 0;
	uint64_t next = a->done > entered ? a->done : entered;
	if (next >= used + AHEAD_BYTES || next + POPULATE_BYTES > a->limit)
		return 0;
	madvise(a->base + next, POPULATE_BYTES, MADV_POPULATE_WRITE);
	__atomic_store_n(&a->done, next + POPULATE_BYTES, __ATOMIC_RELEASE);
	return 1;
}

static void *ahead_main(void *unused) {
	(void)unused;
	for (;;) {
		uint32_t w = __atomic_load_n(&ahead_word, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&stopped, __ATOMIC_RELAXED))
			return NULL; // cut: nothing more is written but symbols
		uint64_t slots = __atomic_load_n(&hdr->next_slot, __ATOMIC_RELAXED);
		uint64_t mallocs = __atomic_load_n(&hdr->next_malloc, __ATOMIC_RELAXED);
		int did = ahead_step(&malloc_area, mallocs * 24);
		did |= ahead_step(&chunk_area, slots * CHUNK_BYTES);
		if (!did) {
			// Until a writer crosses into a region; the timeout only
			// bounds a wake-up lost to a writer that crossed before
			// this looked.
			struct timespec ts = {0, 50 * 1000 * 1000};
			syscall(SYS_futex, &ahead_word, FUTEX_WAIT_PRIVATE, w, &ts, NULL, 0);
		}
	}
}

// start_ahead starts the helper, with every signal blocked.
static void start_ahead(void) {
	chunk_area = (struct area){spool + CHUNKS_OFF, max_chunks * CHUNK_BYTES, POPULATE_BYTES};
	malloc_area = (struct area){spool + HEADER_BYTES, MALLOC_BYTES, POPULATE_BYTES};
	sigset_t all, old;
	sigfillset(&all);
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 64 << 10);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_t t;
	if (pthread_create(&t, &attr, ahead_main, NULL) == 0) {
		ahead_on = 1;
		pthread_setname_np(t, "seer-ahead"); // so that profiles tell it from the test's threads
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
}

// take_slot returns 1 + a slot from the free ring, or 0 if it is empty.
// Only the reader appends (and only to entries already taken), so an
// entry read before the compare-and-swap that takes it is the entry taken.
static uint64_t take_slot(void) {
	uint32_t *ring = (uint32_t *)(spool + RING_OFF);
	uint64_t h = __atomic_load_n(&hdr->ring_head, __ATOMIC_ACQUIRE);
	for (;;) {
		if (h >= __atomic_load_n(&hdr->ring_tail, __ATOMIC_ACQUIRE))
			return 0;
		uint32_t v = __atomic_load_n(&ring[h % RING_SLOTS], __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&hdr->ring_head, &h, h + 1, 1, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			return v <= max_chunks ? v : 0;
	}
}

static uint8_t *new_chunk(struct gctx *g) {
	// next_chunk is what the reader maps: it must not go on counting
	// past the end (each failed call would add one, and the reader would
	// map and touch a chunk header for each).
	uint64_t i = __atomic_load_n(&hdr->next_chunk, __ATOMIC_SEQ_CST);
	do {
		if (i >= max_chunks) {
			__atomic_fetch_add(&hdr->overflow, 1, __ATOMIC_RELAXED);
			cut_here();
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&hdr->next_chunk, &i, i + 1, 1, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	if (i >= max_chunks) {
		__atomic_fetch_add(&hdr->overflow, 1, __ATOMIC_RELAXED);
		cut_here();
		return NULL;
	}
	// The chunk's slot: one the reader gave back, or a fresh one (never
	// more fresh slots than chunks).
	uint64_t slot = take_slot();
	g->reused = slot != 0;
	if (slot)
		slot--;
	else {
		slot = __atomic_fetch_add(&hdr->next_slot, 1, __ATOMIC_RELAXED);
		uint64_t off = slot * CHUNK_BYTES;
		if (off % POPULATE_BYTES == 0)
			populate(&chunk_area, off + POPULATE_BYTES);
	}
	uint8_t *c = spool + CHUNKS_OFF + slot * CHUNK_BYTES;
	((uint32_t *)c)[1] = 0;
	__atomic_store_n((uint32_t *)c, g->gid, __ATOMIC_RELEASE);
	__atomic_store_n((uint32_t *)(spool + TABLE_OFF) + i, (uint32_t)(slot + 1), __ATOMIC_RELEASE);
	return c;
}

// reserve returns room for n words in g's chunk, or NULL when recording is
// off or the spool is full. commit(g, n) publishes them.
static inline uint64_t *reserve(struct gctx *g, uint32_t n) {
	if (!spool || !g || (__atomic_load_n(&stopped, __ATOMIC_RELAXED) && g != &sym_ctx))
		return NULL;
	uint32_t bytes = n * 8;
	if (!g->chunk || g->used + bytes > CHUNK_BYTES - CHUNK_HDR) {
		chunk_done(g);
		count_flush(g);
		if (__atomic_load_n(&stopped, __ATOMIC_RELAXED) && g != &sym_ctx) {
			g->chunk = NULL; // cut at the cap
			return NULL;
		}
		g->chunk = new_chunk(g);
		g->used = 0;
		if (!g->chunk)
			return NULL;
	}
	// Busy until commit: a reader of the live spool does not pass the
	// sequence number this record is about to take (see "Reading while
	// recording" above). The store comes before next_seq's, which
	// publishes it.
	__atomic_store_n((uint32_t *)(g->chunk + 4), g->used | USED_BUSY, __ATOMIC_RELAXED);
	return (uint64_t *)(g->chunk + CHUNK_HDR + g->used);
}

// hold makes g's chunk room for the largest atomic record, busy, before
// the atomic takes its sequence number: atomics take it under their
// address's lock, before atomic_record reserves. It returns the room, or
// NULL.
static inline uint64_t *hold(struct gctx *g) { return reserve(g, 6 + MAX_ATOMIC_PCS); }

static inline void commit(struct gctx *g, uint32_t n) {
	g->used += n * 8;
	__atomic_store_n((uint32_t *)(g->chunk + 4), g->used, __ATOMIC_RELEASE);
}

// ---- symbolisation ----

struct symbolize_code_ctx {
	uptr pc;
	char *func;
	char *file;
	uptr line;
	uptr off;
	uptr res;
};

// SYM_LAST marks, in a symbol record's depth, a pc's last frame: a live
// reader takes a pc's frames once it has them all.
#define SYM_LAST 0x80000000u

static void write_sym(uptr pc, uint32_t depth, const char *fn, const char *file, uptr line) {
	uint32_t fl = fn ? strnlen(fn, 2000) : 0;
	uint32_t il = file ? strnlen(file, 2000) : 0;
	uint32_t words = 3 + (fl + il + 7) / 8;
	uint64_t *w = reserve(&sym_ctx, words);
	if (!w)
		return;
	w[0] = ((uint64_t)pc << 8) | R_SYM;
	w[1] = ((uint64_t)depth << 32) | (uint32_t)line;
	w[2] = ((uint64_t)fl << 16) | il;
	char *s = (char *)&w[3];
	memcpy(s, fn, fl);
	memcpy(s + fl, file, il);
	commit(&sym_ctx, words);
}

// seen reports whether pc has been symbolised or queued, claiming it if not.
// It is asked at every access. A pc below 4 GiB (all of a non-PIE Go
// binary's) is a bit of seen_bits: a byte holds the bits of 8 bytes of
// code, so the code a test runs is covered by an eighth of its size of
// bits, which stay in the cache where the table's words (8 bytes for each
// pc) did not, and its pages are faulted in 64 times less often (the
// table's lookups were a sixth of the recorded TLS handshakes' user time,
// bench/RESULTS.md, branch rec). Other pcs are placed in the table by
// their low bits, not hashed: the pcs of a function share a few pages of
// the table, which a scattering hash spread over all of it, each page
// faulted in fresh the first time.
static int seen(uptr pc) {
	if (pc < SEEN_BITS_LIMIT && seen_bits) {
		uint8_t *b = &seen_bits[pc >> 3], bit = (uint8_t)(1u << (pc & 7));
		if (__atomic_load_n(b, __ATOMIC_ACQUIRE) & bit)
			return 1;
		return (__atomic_fetch_or(b, bit, __ATOMIC_ACQ_REL) & bit) != 0;
	}
	uint64_t h = pc;
	for (uint64_t probe = 0; probe < 64; probe++) {
		uint64_t *slot = &seen_pcs[(h + probe) & (SEEN_SIZE - 1)];
		uint64_t v = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
		if (v == pc)
			return 1;
		if (v == 0) {
			uint64_t zero = 0;
			if (__atomic_compare_exchange_n(slot, &zero, pc, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return 0;
			if (zero == pc)
				return 1;
		}
	}
	return 1; // table full around this hash: the reader shows the raw pc
}

// symbolize_now writes the frames of pc. Call with sym_lock held and only
// from hooks that run on the user goroutine (see symbolize).
static void symbolize_now(uptr pc) {
	struct symbolize_code_ctx c;
	uptr cur = pc - 1; // return address -> the call instruction
	for (uint32_t depth = 0; depth < 64; depth++) {
		memset(&c, 0, sizeof c);
		c.pc = cur;
		callback(1 /* raceSymbolizeCodeCmd */, &c);
		int last = c.pc == cur || depth == 63;
		write_sym(pc, depth | (last ? SYM_LAST : 0), c.func, c.file, c.line);
		if (last)
			break;
		cur = c.pc;
	}
}

// The runtime's callback thunk leaves TLS g = m->curg when it returns, so it
// must not be called on g0 (go_start runs there, and so may some
// acquire/release annotations). Hooks that may run on g0 queue their pcs;
// hooks called from instrumented code (always on the user goroutine) drain
// the queue and symbolise directly.
#define PENDING 4096
static uptr pending[PENDING];
static uint32_t npending;
static volatile uint32_t any_pending;

static void queue_symbol(uptr pc) {
	if (!pc || !callback || !seen_pcs || seen(pc))
		return;
	spin_lock(&sym_lock);
	if (npending < PENDING)
		pending[npending++] = pc;
	__atomic_store_n(&any_pending, 1, __ATOMIC_RELEASE);
	spin_unlock(&sym_lock);
}

static void symbolize(uptr pc) {
	if (!callback || !seen_pcs)
		return;
	int fresh = pc && !seen(pc);
	if (!fresh && !__atomic_load_n(&any_pending, __ATOMIC_ACQUIRE))
		return;
	spin_lock(&sym_lock);
	for (uint32_t i = 0; i < npending; i++)
		symbolize_now(pending[i]);
	npending = 0;
	__atomic_store_n(&any_pending, 0, __ATOMIC_RELEASE);
	if (fresh)
		symbolize_now(pc);
	spin_unlock(&sym_lock);
}

// sym_pending symbolises the queued pcs, for a hook on a user goroutine
// that records nothing: once the run is cut, no hook calls sym, and the
// pcs that records kept before the cut queued (a synchronisation's
// frames, a go statement's pc) would go without symbols, their frames a
// bare address where the same run cut later named them (and the live
// reader would wait for them until the test ended).
static inline void sym_pending(struct gctx *thr) {
	if (__atomic_load_n(&any_pending, __ATOMIC_ACQUIRE) && thr && !thr->system)
		symbolize(0);
}

// ---- initialisation ----

// open_spool maps the spool that seer created for this run: empty, or
// sized and its first pages made ready by seer (trace.PrepareSpool), with
// a header of zeros. A test that runs its own binary again (os.Args[0], as
// crash and misuse tests do) hands the child the same SEER_SPOOL; the
// child finds the spool claimed (sized, or its header's pid written) and
// records nothing, as the race detector reports per process.
// claim makes the spool open as fd this process's, under its lock: an
// empty one by sizing it, a sized one by writing its header's pid.
static int claim(int fd, off_t size) {
	if (size == 0)
		return ftruncate(fd, SPOOL_BYTES) == 0;
	const off_t at = offsetof(struct spool_header, pid);
	uint64_t pid = 0;
	if (size != (off_t)SPOOL_BYTES || pread(fd, &pid, sizeof pid, at) != sizeof pid || pid != 0)
		return 0;
	pid = getpid();
	return pwrite(fd, &pid, sizeof pid, at) == sizeof pid;
}

static void open_spool(void) {
	const char *path = getenv("SEER_SPOOL");
	if (!path || !*path)
		return;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return;
	const char *drop = getenv(ATOMIC_DROP_ENV);
	atomic_drop_on = drop && strcmp(drop, "1") == 0;
	const char *cap = getenv("SEER_EVENT_CAP");
	if (cap && *cap)
		event_cap = strtoull(cap, NULL, 10);
	max_chunks = MAX_CHUNKS;
	const char *limit = getenv("SEER_SPOOL_CHUNKS");
	if (limit && *limit) {
		uint64_t n = strtoull(limit, NULL, 10);
		if (n > 0 && n < MAX_CHUNKS)
			max_chunks = n;
	}
	struct stat st;
	if (flock(fd, LOCK_EX) != 0 || fstat(fd, &st) != 0 || !claim(fd, st.st_size)) {
		close(fd);
		return;
	}
	flock(fd, LOCK_UN);
	void *m = mmap(NULL, SPOOL_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	void *seen = mmap(NULL, SEEN_SIZE * 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (seen == MAP_FAILED) {
		munmap(m, SPOOL_BYTES);
		return;
	}
	seen_pcs = seen;
	void *bits = mmap(NULL, SEEN_BITS_LIMIT / 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (bits != MAP_FAILED)
		seen_bits = bits;
	spool = m;
	madvise(spool + CHUNKS_OFF, POPULATE_BYTES, MADV_POPULATE_WRITE);
	madvise(spool + HEADER_BYTES, POPULATE_BYTES, MADV_POPULATE_WRITE);
	hdr = (struct spool_header *)m;
	start_ahead();
	hdr->version = SPOOL_VERSION;
	hdr->chunk_bytes = CHUNK_BYTES;
	hdr->chunks_off = CHUNKS_OFF;
	hdr->malloc_bytes = MALLOC_BYTES;
	hdr->pid = getpid();
	hdr->ptr_size = sizeof(void *);
	hdr->max_chunks = max_chunks;
	hdr->table_off = TABLE_OFF;
	hdr->ring_off = RING_OFF;
	hdr->ring_slots = RING_SLOTS;
	sym_ctx.gid = SYM_GID;
	seq_ptr = &hdr->seq;
	__atomic_store_n(&hdr->magic, SPOOL_MAGIC, __ATOMIC_RELEASE);
}

// ---- replay ----
//
// When SEER_REPLAY names a schedule file (written by trace/replay.go), the
// recorder also enforces a witness schedule: the goroutines the schedule
// names wait, at gates, until it is their turn. The file is mapped shared,
// and the recorder writes back how the replay went.
//
// Goroutines are matched by creation: the schedule's goroutine without a
// parent is the context of m0's g0 (__tsan_init's, which starts main); any
// other is the n-th goroutine started by a goroutine the schedule names. Positions within a goroutine are
// counted in countable records: plain accesses and function entries whose
// pc lies in the schedule's ranges (functions outside the runtime and the
// sync packages, the same ranges the converter counts with), which do not
// depend on timing as a mutex's spinning or a channel's parking do. A
// step (slot, gate) lets its goroutine go on, once it has made gate
// countable records, only when the turn is the step's: so a goroutine
// always waits at a record of its own code, never inside a race-runtime
// call made while the runtime or package sync holds a lock. The turn
// passes to the next step when the holder makes its next operation or
// countable record, or when a waiter sees that the holder made no record
// for the stall time once at its gate (it is parked in its operation) or
// for the absent time before (it waits for what the schedule runs later:
// the replay diverges), time in which it sleeps or waits on a timer's
// channel not counted (g_asleep); after the
// last step, or the total time, every gate is open. A goroutine with a
// hold waits, at that gate, until every step has run (the schedule leaves
// its later events out). Waiting spins with sched_yield and nanosleep.
//
// Whether the replay showed the bug is decided from its recording, not
// here: this only steers.

#define RP_MAGIC 0x52504c59u /* "YLPR" */
#define RP_VERSION 1

struct rp_header {
	uint32_t magic, version, ngor, nsteps, nranges, stall_us, total_ms, absent_ms;
	// written by the recorder
	uint32_t attached;      // 1 once loaded
	uint32_t turn;          // steps run (or passed)
	uint32_t skipped;       // steps passed on a stall
	uint32_t first_missing; // 1 + the first step passed while its goroutine had not reached its gate
	uint32_t opened;        // 1 if the total time ran out
	uint32_t matched;       // goroutines matched
	uint32_t missing_slot;  // 1 + that step's goroutine
	uint32_t pad2;
};

struct rp_gor {
	int32_t parent;  // slot of the parent, -1 for main
	uint32_t index;  // index among the parent's children
	uint32_t flags;  // RP_ENFORCED, RP_HOLD_SUB, RP_HOLD_SKIP1
	uint32_t hold;   // 1 + the gate at which it waits for the end, or 0
};

// RP_HOLD_SUB: the goroutine waits for the end at its first hook after
// its last step's operation (its hold is at that step's position), with
// RP_HOLD_SKIP1 as RP_SKIP1.
#define RP_ENFORCED 1
#define RP_HOLD_SUB 2
#define RP_HOLD_SKIP1 4

struct rp_step {
	uint32_t slot, gate;
	uint32_t flags; // RP_SUB, RP_SKIP1
	uint32_t pad;
};

// A step at the same position as its goroutine's step before it (RP_SUB)
// is taken at the goroutine's first hook after that step's operation: no
// countable record comes between them. RP_SKIP1: not at an atomic first
// (the step before is Mutex.Unlock, whose atomic follows its release).
#define RP_SUB 1
#define RP_SKIP1 2

struct rp_slot {
	uint32_t first, n; // its steps: rp_own[first .. first+n)
};

static struct rp_header *rp;    // the mapped schedule, or NULL
static struct rp_gor *rp_gors;
static struct rp_step *rp_steps;
static uint64_t *rp_ranges;     // [lo, hi) pairs, sorted
static struct rp_slot *rp_slots;
static uint32_t *rp_own;        // step indices, by slot
static uint8_t *rp_gone;        // steps their goroutines will not take
static struct gctx **rp_ctx;    // slot -> context, once matched
static volatile uint32_t rp_turn __attribute__((aligned(64)));
static volatile uint32_t rp_open;
static uint64_t rp_start_ns;

static uint64_t now_ns(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

// map_env maps, shared, the file the environment variable env names, if
// it holds at least min bytes; *size is its size.
static uint8_t *map_env(const char *env, uint64_t min, uint64_t *size) {
	const char *path = getenv(env);
	if (!path || !*path)
		return NULL;
	int fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	if (fstat(fd, &st) != 0 || (uint64_t)st.st_size < min) {
		close(fd);
		return NULL;
	}
	uint8_t *m = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return NULL;
	*size = st.st_size;
	return m;
}

// in_ranges reports whether pc lies in one of the n sorted [lo, hi) pairs
// of r.
static int in_ranges(const uint64_t *r, uint32_t n, uptr pc) {
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (pc < r[2 * mid])
			hi = mid;
		else if (pc >= r[2 * mid + 1])
			lo = mid + 1;
		else
			return 1;
	}
	return 0;
}

static void rp_init(void) {
	uint64_t size = 0;
	uint8_t *m = map_env("SEER_REPLAY", sizeof(struct rp_header), &size);
	if (!m)
		return;
	struct rp_header *h = (struct rp_header *)m;
	uint64_t need = sizeof *h + (uint64_t)h->ngor * sizeof(struct rp_gor) + (uint64_t)h->nsteps * sizeof(struct rp_step);
	need = (need + 7) & ~7ULL;
	need += (uint64_t)h->nranges * 16;
	if (h->magic != RP_MAGIC || h->version != RP_VERSION || h->ngor == 0 || need > size) {
		munmap(m, size);
		return;
	}
	rp_gors = (struct rp_gor *)(m + sizeof *h);
	rp_steps = (struct rp_step *)(rp_gors + h->ngor);
	rp_ranges = (uint64_t *)(m + (((uint64_t)(sizeof *h + h->ngor * sizeof(struct rp_gor) + h->nsteps * sizeof(struct rp_step)) + 7) & ~7ULL));
	rp_slots = calloc(h->ngor, sizeof *rp_slots);
	rp_own = calloc(h->nsteps + 1, sizeof *rp_own);
	rp_ctx = calloc(h->ngor, sizeof *rp_ctx);
	rp_gone = calloc(h->nsteps + 1, 1);
	if (!rp_slots || !rp_own || !rp_ctx || !rp_gone)
		return;
	for (uint32_t k = 0; k < h->nsteps; k++)
		if (rp_steps[k].slot < h->ngor)
			rp_slots[rp_steps[k].slot].n++;
	uint32_t at = 0;
	for (uint32_t s = 0; s < h->ngor; s++) {
		rp_slots[s].first = at;
		at += rp_slots[s].n;
		rp_slots[s].n = 0;
	}
	for (uint32_t k = 0; k < h->nsteps; k++) {
		struct rp_slot *sl = &rp_slots[rp_steps[k].slot];
		if (rp_steps[k].slot < h->ngor)
			rp_own[sl->first + sl->n++] = k;
	}
	rp_start_ns = now_ns();
	__atomic_store_n(&h->attached, 1, __ATOMIC_RELEASE);
	rp = h;
}

// rp_countable reports whether a record at pc counts (see above).
static int rp_countable(uptr pc) { return in_ranges(rp_ranges, rp->nranges, pc); }

static inline int rp_active(struct gctx *thr) {
	return rp && thr && thr->slot >= 0 && !__atomic_load_n(&rp_open, __ATOMIC_RELAXED);
}

// rp_advance passes the turn from step k to k+1, if it is still k's.
static int rp_advance(uint32_t k) {
	uint32_t want = k;
	if (!__atomic_compare_exchange_n(&rp_turn, &want, k + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
		return 0;
	__atomic_store_n(&rp->turn, k + 1, __ATOMIC_RELEASE);
	return 1;
}

static int g_asleep(struct gctx *thr); // below, "goroutines asleep, for replay"

// rp_wait waits until the turn reaches k (k = nsteps: the end). The
// time the holder of the turn sleeps, or waits on a timer's channel, does
// not count towards the stall and absent times: a back-off loop that
// sleeps between its steps has not left the schedule.
static void rp_wait(uint32_t k) {
	uint32_t seen_turn = ~0u, seen_prog = 0;
	uint64_t since = 0;
	uint64_t stall = (uint64_t)rp->stall_us * 1000, total = (uint64_t)rp->total_ms * 1000000;
	uint64_t absent = (uint64_t)rp->absent_ms * 1000000;
	for (uint32_t spins = 0;; spins++) {
		uint32_t t = __atomic_load_n(&rp_turn, __ATOMIC_ACQUIRE);
		if (t >= k || t >= rp->nsteps || __atomic_load_n(&rp_open, __ATOMIC_RELAXED))
			return;
		if (__atomic_load_n(&rp_gone[t], __ATOMIC_ACQUIRE)) {
			rp_advance(t);
			continue;
		}
		if (spins < 64) {
			sched_yield();
			continue;
		}
		struct timespec ts = {0, 50000};
		nanosleep(&ts, NULL);
		uint64_t now = now_ns();
		if (now - rp_start_ns > total) {
			__atomic_store_n(&rp_open, 1, __ATOMIC_RELAXED);
			__atomic_store_n(&rp->opened, 1, __ATOMIC_RELEASE);
			return;
		}
		// Has the holder of step t made progress?
		uint32_t slot = rp_steps[t].slot;
		struct gctx *h = slot < rp->ngor ? __atomic_load_n(&rp_ctx[slot], __ATOMIC_ACQUIRE) : NULL;
		uint32_t prog = h ? __atomic_load_n(&h->nrec, __ATOMIC_RELAXED) : 0;
		if (t != seen_turn || prog != seen_prog || since == 0 || g_asleep(h)) {
			seen_turn = t;
			seen_prog = prog;
			since = now;
			continue;
		}
		int arrived = h && __atomic_load_n(&h->inop, __ATOMIC_RELAXED) == t + 1;
		if (now - since < (arrived ? stall : absent))
			continue;
		if (rp_advance(t)) {
			__atomic_fetch_add(&rp->skipped, 1, __ATOMIC_RELAXED);
			if (!arrived) {
				uint32_t zero = 0;
				if (__atomic_compare_exchange_n(&rp->first_missing, &zero, t + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
					__atomic_store_n(&rp->missing_slot, slot + 1, __ATOMIC_RELEASE);
			}
		}
		since = 0;
	}
}

// Hooks tell the replay what kind of record they make.
enum { RP_REC, RP_EXIT, RP_OP, RP_ATOMIC };

// rp_mark_gone marks step k as one its goroutine will not take (it passed
// the position, or ended): the turn passes it at once.
static void rp_mark_gone(uint32_t k) {
	__atomic_store_n(&rp_gone[k], 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&rp_turn, __ATOMIC_ACQUIRE) == k && rp_advance(k)) {
		uint32_t zero = 0;
		__atomic_fetch_add(&rp->skipped, 1, __ATOMIC_RELAXED);
		if (__atomic_compare_exchange_n(&rp->first_missing, &zero, k + 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			__atomic_store_n(&rp->missing_slot, rp_steps[k].slot + 1, __ATOMIC_RELEASE);
	}
}

// rp_take waits for step k's turn: thr then runs the step's operation.
static void rp_take(struct gctx *thr, uint32_t k) {
	thr->next++;
	rp_wait(k);
	__atomic_store_n(&thr->inop, k + 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&rp_turn, __ATOMIC_ACQUIRE) == k)
		__atomic_store_n(&thr->holding, k + 1, __ATOMIC_RELAXED);
}

// rp_skip_stale gives up thr's steps at positions it has passed.
static void rp_skip_stale(struct gctx *thr) {
	struct rp_slot *sl = &rp_slots[thr->slot];
	while (thr->next < sl->n) {
		uint32_t k = rp_own[sl->first + thr->next];
		if (rp_steps[k].gate >= thr->ord)
			return;
		thr->next++;
		rp_mark_gone(k);
	}
}

// rp_complete ends the step thr runs: the turn passes on, and a next step
// at the same position (RP_SUB) is armed, to be taken at thr's next hook.
static void rp_complete(struct gctx *thr) {
	if (thr->holding) {
		rp_advance(thr->holding - 1);
		__atomic_store_n(&thr->holding, 0, __ATOMIC_RELAXED);
	}
	thr->inop = 0;
	rp_skip_stale(thr);
	struct rp_slot *sl = &rp_slots[thr->slot];
	if (thr->next < sl->n) {
		struct rp_step *st = &rp_steps[rp_own[sl->first + thr->next]];
		if ((st->flags & RP_SUB) && st->gate == thr->ord) {
			thr->armed = 1;
			thr->skip = (st->flags & RP_SKIP1) ? 1 : 0;
		}
	} else if (rp_gors[thr->slot].flags & RP_HOLD_SUB) {
		thr->armed = 2; // held at its next hook
		thr->skip = (rp_gors[thr->slot].flags & RP_HOLD_SKIP1) ? 1 : 0;
	}
}

// rp_gate stops thr at its gate, if it has made as many countable records
// as its next step's (or its hold's) gate says.
static void rp_gate(struct gctx *thr) {
	rp_skip_stale(thr);
	struct rp_slot *sl = &rp_slots[thr->slot];
	if (thr->next < sl->n) {
		uint32_t k = rp_own[sl->first + thr->next];
		if (!(rp_steps[k].flags & RP_SUB) && rp_steps[k].gate == thr->ord)
			rp_take(thr, k);
	}
	uint32_t hold = rp_gors[thr->slot].hold;
	if (hold && hold - 1 == thr->ord && thr->next >= sl->n && !thr->inop)
		rp_wait(rp->nsteps);
}

// rp_pre runs at the start of each hook of thr's own, before its record:
// progress; the gate before its first record; an armed step's gate.
static struct ex_header *ex; // steering (see "Steering" below), or NULL
static inline void ex_pre(struct gctx *thr);
static inline void rp_pre(struct gctx *thr, int cls) {
	if (ex)
		ex_pre(thr);
	if (!rp_active(thr))
		return;
	__atomic_store_n(&thr->nrec, thr->nrec + 1, __ATOMIC_RELAXED);
	if (!thr->started) {
		thr->started = 1;
		rp_gate(thr);
	}
	if (!thr->armed || cls == RP_EXIT || (cls == RP_ATOMIC && thr->ignore))
		return;
	if (cls == RP_ATOMIC && thr->skip) {
		thr->skip--; // the rest of the step before (Mutex.Unlock's atomic)
		return;
	}
	uint32_t armed = thr->armed;
	thr->armed = 0;
	struct rp_slot *sl = &rp_slots[thr->slot];
	if (armed == 2)
		rp_wait(rp->nsteps);
	else if (thr->next < sl->n)
		rp_take(thr, rp_own[sl->first + thr->next]);
}

// rp_op runs after thr made an operation's record (a synchronisation
// annotation of its own, an atomic, a go statement): it ends the step
// thr runs. The atomics of package sync's internals, made with
// synchronisation ignored, do not.
static inline void rp_op(struct gctx *thr, int cls) {
	if (!rp || !thr || thr->slot < 0 || !thr->inop || (cls == RP_ATOMIC && thr->ignore))
		return;
	rp_complete(thr);
}

// rp_record runs after thr made a record at pc that may count.
static inline void rp_record(struct gctx *thr, uptr pc) {
	if (!rp_active(thr) || !rp_countable(pc))
		return;
	if (thr->inop)
		rp_complete(thr);
	thr->armed = 0;
	thr->ord++;
	rp_gate(thr);
}

// rp_end runs when thr ends: the steps it has not taken are gone.
static void rp_end(struct gctx *thr) {
	if (!rp || !thr || thr->slot < 0)
		return;
	if (thr->inop)
		rp_complete(thr);
	struct rp_slot *sl = &rp_slots[thr->slot];
	while (thr->next < sl->n)
		rp_mark_gone(rp_own[sl->first + thr->next++]);
}

// rp_bind makes ctx the schedule's goroutine s.
static void rp_bind(struct gctx *ctx, uint32_t s) {
	ctx->slot = s;
	__atomic_store_n(&rp_ctx[s], ctx, __ATOMIC_RELEASE);
	__atomic_fetch_add(&rp->matched, 1, __ATOMIC_RELAXED);
	if (!(rp_gors[s].flags & RP_ENFORCED))
		ctx->started = 1; // tracked for its children only: no gates
}

// rp_root binds the context of m0's g0, the root of every goroutine
// tree (it starts main), to the schedule's goroutine without a parent.
static void rp_root(struct gctx *ctx) {
	for (uint32_t s = 0; s < rp->ngor; s++)
		if (rp_gors[s].parent < 0) {
			rp_bind(ctx, s);
			return;
		}
}

// rp_match gives child, started by parent, its slot.
static void rp_match(struct gctx *parent, struct gctx *child, uptr pc) {
	if (!rp || !parent || parent->slot < 0)
		return;
	int32_t want = parent->slot;
	// The runtime's own goroutines (GC workers, started from whichever
	// goroutine allocates) do not count, except the root's (main).
	if (rp_gors[want].parent >= 0 && !rp_countable(pc))
		return;
	uint32_t index = parent->nchild++;
	for (uint32_t s = 0; s < rp->ngor; s++) {
		if (rp_gors[s].parent == want && rp_gors[s].index == index) {
			rp_bind(child, s);
			return;
		}
	}
}

// ---- steering (exploration) ----
//
// When SEER_EXPLORE names a steering file (written by trace/explore.go),
// the recorder steers the run towards a schedule the first run did not
// take, for seer check -explore. It only ever delays a goroutine, and
// only at a countable record (an access or function entry of the user's
// code, never inside the runtime or package sync, so never while a
// runtime lock is held): every steered run is one Go could have taken,
// no timer fires early and the memory model is untouched. Every wait is
// bounded, per step and in total (the file's budget), so a goroutine
// that waits for one that is blocked or asleep goes on.
//
// Goroutines are named by creation, as replay names them: the root (m0's
// g0) has a fixed hash and the n-th child a goroutine starts (counting
// go statements at countable pcs, and every child of the root) has the
// hash of (its parent's hash, n). trace/explore.go computes the same
// hashes from a recording (GoPaths), so that a delay planned from one run
// names a goroutine of the next. Positions count countable records, as
// replay's do (Trace.ReplayPos).
//
// Two kinds of steering, one per run:
//   - delays: goroutine P waits for D ms once it has made exactly pos
//     countable records (just before the operation the plan names: a
//     select, the send that completed another goroutine's select case,
//     the first receive or lock of a goroutine that won a contended
//     channel or mutex);
//   - PCT (Burckhardt et al., ASPLOS'10, section 3): each named goroutine
//     gets a random priority from the seed; at a steering point (a
//     goroutine's first countable record, each atomic of its own, and its
//     first countable record after each synchronisation of its own: the
//     runtime annotates a channel operation inside its critical section,
//     so the wait comes after it) the global step counter
//     advances, at the d-1 change points it drops the goroutine's
//     priority below every other, and the goroutine waits while a
//     goroutine of higher priority is enabled: waiting at a steering
//     point itself, or seen to make records. One that makes none for
//     EX_IDLE_US is blocked or asleep, and no longer holds it up.

#define EX_MAGIC 0x524c5058u /* "XPLR" */
#define EX_VERSION 1
#define EX_PCT 1
#define EX_MAX_G 65536
#define EX_SCAN 64
#define EX_IDLE_US 200
#define EX_ROOT 0x9E3779B97F4A7C15ULL

struct ex_header {
	uint32_t magic, version, flags, nchange, ndelays, nranges, step_us, budget_ms;
	uint64_t seed;
	// written by the recorder
	uint32_t attached, delayed; // 1 once loaded; delays taken
	uint64_t steps;             // PCT steering points passed
	uint64_t waited_us;         // time spent waiting, all goroutines
	uint64_t pad[2];
};

struct ex_delay {
	uint64_t path;
	uint32_t pos, ms;
};

static uint64_t *ex_change;   // PCT change points (step numbers), sorted
static struct ex_delay *ex_delays; // sorted by path, then pos
static uint64_t *ex_ranges;   // countable [lo, hi) pc ranges, sorted
static struct gctx *ex_gs[EX_MAX_G]; // named goroutines, for PCT's waiters
static uint32_t ex_ng;
static volatile int ex_budget_out;
static struct gctx *ex_root; // m0's g0 context, the root of the names

// ex_mix is splitmix64's finaliser; trace/explore.go has the same.
static uint64_t ex_mix(uint64_t x) {
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	x ^= x >> 31;
	return x ? x : 1;
}

static void ex_init(void) {
	uint64_t size = 0;
	uint8_t *m = map_env("SEER_EXPLORE", sizeof(struct ex_header), &size);
	if (!m)
		return;
	struct ex_header *h = (struct ex_header *)m;
	uint64_t need = sizeof *h + (uint64_t)h->nchange * 8 + (uint64_t)h->ndelays * sizeof(struct ex_delay) +
			(uint64_t)h->nranges * 16;
	if (h->magic != EX_MAGIC || h->version != EX_VERSION || need > size) {
		munmap(m, size);
		return;
	}
	ex_change = (uint64_t *)(m + sizeof *h);
	ex_delays = (struct ex_delay *)(ex_change + h->nchange);
	ex_ranges = (uint64_t *)(ex_delays + h->ndelays);
	__atomic_store_n(&h->attached, 1, __ATOMIC_RELEASE);
	ex = h;
}

static int ex_countable(uptr pc) { return in_ranges(ex_ranges, ex->nranges, pc); }

// ex_name names ctx by its path hash: its delays, its priority, and a
// place among PCT's goroutines.
static void ex_name(struct gctx *ctx, uint64_t path) {
	ctx->ex_path = path;
	uint32_t lo = 0, hi = ex->ndelays;
	while (lo < hi) { // the first delay of path
		uint32_t mid = lo + (hi - lo) / 2;
		if (ex_delays[mid].path < path)
			lo = mid + 1;
		else
			hi = mid;
	}
	ctx->ex_di = lo;
	while (hi < ex->ndelays && ex_delays[hi].path == path)
		hi++;
	ctx->ex_dn = hi;
	// Initial priorities lie above every priority a change point gives.
	ctx->ex_prio = ex_mix(path ^ ex->seed) | (1ULL << 62);
	if (ctx->system)
		return; // the root names its children only
	uint32_t i = __atomic_fetch_add(&ex_ng, 1, __ATOMIC_ACQ_REL);
	if (i < EX_MAX_G)
		__atomic_store_n(&ex_gs[i], ctx, __ATOMIC_RELEASE);
}

// ex_match names child, started by parent at pc (as rp_match counts).
static void ex_match(struct gctx *parent, struct gctx *child, uptr pc) {
	if (!ex || !parent || !parent->ex_path)
		return;
	if (parent != ex_root && !ex_countable(pc))
		return;
	uint32_t index = parent->ex_nchild++;
	if (!child->system) // the runtime's timer contexts run on g0: never steered
		ex_name(child, ex_mix(parent->ex_path * 31 + index + 1));
}

// ex_spent adds a wait to the run's total and reports whether the budget
// is left.
static int ex_spent(uint64_t ns) {
	uint64_t us = __atomic_add_fetch(&ex->waited_us, ns / 1000, __ATOMIC_RELAXED);
	if (us >= (uint64_t)ex->budget_ms * 1000) {
		__atomic_store_n(&ex_budget_out, 1, __ATOMIC_RELAXED);
		return 0;
	}
	return 1;
}

static void ex_sleep_us(uint64_t us) {
	struct timespec ts = {(time_t)(us / 1000000), (long)(us % 1000000) * 1000};
	nanosleep(&ts, NULL);
}

// ex_pct is PCT's steering point for thr.
static void ex_pct(struct gctx *thr) {
	uint64_t step = __atomic_add_fetch(&ex->steps, 1, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < ex->nchange; i++)
		if (ex_change[i] == step)
			thr->ex_prio = ex->nchange - i; // below every initial priority, later ones lower
	uint64_t start = now_ns(), limit = (uint64_t)ex->step_us * 1000;
	struct gctx *hs[EX_SCAN];
	uint32_t snap[EX_SCAN];
	__atomic_store_n(&thr->ex_waiting, 1, __ATOMIC_RELEASE);
	for (;;) {
		uint32_t ng = __atomic_load_n(&ex_ng, __ATOMIC_ACQUIRE), n = 0;
		int waiting = 0;
		if (ng > EX_MAX_G)
			ng = EX_MAX_G;
		for (uint32_t i = 0; i < ng && n < EX_SCAN; i++) {
			struct gctx *h = __atomic_load_n(&ex_gs[i], __ATOMIC_ACQUIRE);
			if (!h || h == thr || __atomic_load_n(&h->ex_ended, __ATOMIC_RELAXED) || h->ex_prio <= thr->ex_prio)
				continue;
			if (__atomic_load_n(&h->ex_waiting, __ATOMIC_ACQUIRE))
				waiting = 1;
			hs[n] = h;
			snap[n++] = __atomic_load_n(&h->ex_tick, __ATOMIC_RELAXED);
		}
		if (n == 0)
			break;
		ex_sleep_us(waiting ? EX_IDLE_US / 4 : EX_IDLE_US);
		int moved = waiting;
		for (uint32_t j = 0; j < n && !moved; j++)
			moved = __atomic_load_n(&hs[j]->ex_tick, __ATOMIC_RELAXED) != snap[j];
		if (!moved || now_ns() - start > limit || __atomic_load_n(&ex_budget_out, __ATOMIC_RELAXED))
			break;
	}
	__atomic_store_n(&thr->ex_waiting, 0, __ATOMIC_RELEASE);
	ex_spent(now_ns() - start);
}

// ex_delay takes thr's delay at its position, if it has one.
static void ex_delay(struct gctx *thr) {
	while (thr->ex_di < thr->ex_dn && ex_delays[thr->ex_di].pos < thr->ex_ord)
		thr->ex_di++;
	if (thr->ex_di >= thr->ex_dn || ex_delays[thr->ex_di].pos != thr->ex_ord)
		return;
	uint32_t ms = ex_delays[thr->ex_di++].ms;
	__atomic_fetch_add(&ex->delayed, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&thr->ex_waiting, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < ms && !__atomic_load_n(&ex_budget_out, __ATOMIC_RELAXED); i++) {
		ex_sleep_us(1000);
		if (!ex_spent(1000000))
			break;
	}
	__atomic_store_n(&thr->ex_waiting, 0, __ATOMIC_RELEASE);
}

// ex_record runs after thr made a record at pc that may count.
static inline void ex_record(struct gctx *thr, uptr pc) {
	if (!thr || !thr->ex_path || thr->system || !ex_countable(pc))
		return;
	thr->ex_tick++;
	thr->ex_ord++;
	if (__atomic_load_n(&ex_budget_out, __ATOMIC_RELAXED))
		return;
	if (ex->flags & EX_PCT) {
		if (thr->ex_armed || thr->ex_ord == 1) {
			thr->ex_armed = 0;
			ex_pct(thr);
		}
		return;
	}
	if (thr->ex_di < thr->ex_dn)
		ex_delay(thr);
}

// ex_pre runs at the start of each hook of thr's own: a delay at
// position 0 is taken before its first record (a goroutine may make none
// that counts before the operation the delay aims at).
static inline void ex_pre(struct gctx *thr) {
	if (!thr || thr->ex_started || !thr->ex_path || thr->system)
		return;
	thr->ex_started = 1;
	if (!(ex->flags & EX_PCT) && thr->ex_di < thr->ex_dn && !__atomic_load_n(&ex_budget_out, __ATOMIC_RELAXED))
		ex_delay(thr);
}

// ex_op runs after thr made a synchronisation record of its own (not one
// of package sync's internal atomics): its next countable record is a
// steering point.
static inline void ex_op(struct gctx *thr, int cls) {
	if (!ex || !thr || !thr->ex_path || thr->system || (cls == RP_ATOMIC && thr->ignore))
		return;
	thr->ex_tick++;
	thr->ex_armed = 1;
}

// ex_atomic runs before thr performs an atomic of its own: under PCT a
// steering point (waiting there holds no lock of the runtime's).
static inline void ex_atomic(struct gctx *thr) {
	if (!ex || !thr || !thr->ex_path || thr->system || thr->ignore || !(ex->flags & EX_PCT) ||
	    __atomic_load_n(&ex_budget_out, __ATOMIC_RELAXED))
		return;
	thr->ex_tick++;
	thr->ex_armed = 0;
	ex_pct(thr);
}

static void ex_end(struct gctx *thr) {
	if (ex && thr)
		__atomic_store_n(&thr->ex_ended, 1, __ATOMIC_RELEASE);
}

static struct gctx *new_gctx(void) {
	struct gctx *g = calloc(1, sizeof *g);
	if (g) {
		g->gid = __atomic_add_fetch(&gid_counter, 1, __ATOMIC_RELAXED);
		g->slot = -1;
	}
	return g;
}

static struct gctx *init_ctx;
static int main_started;

// sym chooses how hooks name a pc: contexts that run on g0 (m0's g0, and the
// ones the runtime creates for timer functions with racegostart: see
// __tsan_go_start) only queue it; the callback thunk must not run there.
static inline void sym(struct gctx *thr, uptr pc) {
	// The common case, inline: a pc seen before, and no pc queued.
	if (pc < SEEN_BITS_LIMIT && seen_bits && (__atomic_load_n(&seen_bits[pc >> 3], __ATOMIC_ACQUIRE) & (1u << (pc & 7))) &&
	    !__atomic_load_n(&any_pending, __ATOMIC_ACQUIRE))
		return;
	if (thr && thr->system)
		queue_symbol(pc);
	else
		symbolize(pc);
}

void __tsan_init(void **thr, void **proc, void (*cb)(uptr cmd, void *ctx)) {
	callback = cb;
	open_spool();
	if (spool)
		rp_init();
	init_ctx = new_gctx();
	if (init_ctx)
		init_ctx->system = 1;
	if (rp && init_ctx)
		rp_root(init_ctx);
	if (spool)
		ex_init();
	if (ex && init_ctx) {
		ex_root = init_ctx;
		ex_name(init_ctx, EX_ROOT);
	}
	*thr = init_ctx;
	static int dummy_proc;
	*proc = &dummy_proc;
}

void __tsan_fini(void) {
	if (hdr)
		__atomic_store_n(&hdr->fini, next_seq(), __ATOMIC_RELEASE);
	// Like ThreadSanitizer's: exit with the status the race runtime decided
	// (always success: seer reports nothing itself).
	exit(0);
}

void __tsan_proc_create(void **pctx) {
	static int dummy_proc;
	*pctx = &dummy_proc;
}
void __tsan_proc_destroy(void *pctx) { (void)pctx; }
void __tsan_map_shadow(uptr addr, uptr size) { (void)addr; (void)size; }
void __tsan_report_count(uint64_t *pn) { *pn = 0; }
// The runtime calls this on the goroutine that runs finalizers or cleanups,
// before each batch. ThreadSanitizer makes it acquire everything every
// goroutine has done so far; convert.go builds that ordering from the record.
void __tsan_finalizer_goroutine(struct gctx *thr) {
	uint64_t *w = reserve(thr, 1);
	if (w) {
		w[0] = (next_seq() << 8) | R_FINGO;
		commit(thr, 1);
	}
}

// ---- goroutines ----

// timer_pc is the pc racegostart is given for a P's (or a synctest
// bubble's) timer context, from the shadow runtime's init
// (timerctx.go.in), or 0: a Go release whose runtime makes them otherwise
// gets no such file, and its timer contexts are told by their parent alone.
static uptr timer_pc;

void seer_timer_context(uptr pc) { __atomic_store_n(&timer_pc, pc, __ATOMIC_RELEASE); }

static int timer_context(uptr pc) {
	uptr t = __atomic_load_n(&timer_pc, __ATOMIC_ACQUIRE);
	return t && pc == t;
}

void __tsan_go_start(struct gctx *parent, struct gctx **pchild, uptr pc) {
	struct gctx *child = new_gctx();
	*pchild = child;
	if (!child)
		return;
	if (timer_context(pc)) {
		// A P's timer context (racegostart in unlockAndRun), made where
		// the P first runs a timer. racegostart names m->curg's context
		// its parent when there is one: a goroutine that runs a timer
		// itself, on the system stack (a receive from a Ticker's channel
		// whose time has come, maybeRunChan; Stop or Reset,
		// maybeRunAsync), would be its parent, and the context, taken for
		// a goroutine's, would call back into Go from g0 (sym): the
		// callback thunk then leaves TLS g = m->curg, and the next
		// systemstack on that g0 starts again at the top of the g0 stack,
		// over the frames still running there. The context is the
		// runtime's whoever made it, as when the scheduler does: no
		// parent (no go record in the goroutine, which has no go
		// statement there) and system.
		child->system = 1;
		parent = NULL;
	} else if (!parent || parent->system) {
		// The first goroutine started from m0's g0 is main; the others are
		// the runtime's timer contexts, which run on g0.
		if (parent == init_ctx && !main_started)
			main_started = 1;
		else
			child->system = 1;
	} else
		rp_pre(parent, RP_OP);
	queue_symbol(pc);
	uint64_t *w = reserve(parent, 3);
	if (w) {
		w[0] = (next_seq() << 8) | R_GO;
		w[1] = child->gid;
		w[2] = pc;
		commit(parent, 3);
		count_event(parent);
	}
	w = reserve(child, 2);
	if (w) {
		w[0] = (next_seq() << 8) | R_START;
		w[1] = parent ? parent->gid : 0;
		commit(child, 2);
		count_event(child);
	}
	rp_match(parent, child, pc);
	rp_op(parent, RP_OP);
	ex_match(parent, child, pc);
	if (parent && !parent->system)
		ex_op(parent, RP_OP);
}

void __tsan_go_end(struct gctx *thr) {
	rp_end(thr);
	ex_end(thr);
	uint64_t *w = reserve(thr, 1);
	if (w) {
		w[0] = (next_seq() << 8) | R_END;
		commit(thr, 1);
		count_event(thr);
	}
	chunk_done(thr); // the goroutine writes no more
	count_flush(thr);
	thr->ended = 1;
	thr->chunk = NULL;
}

void __tsan_go_ignore_sync_begin(struct gctx *thr) {
	if (thr)
		thr->ignore++;
}
void __tsan_go_ignore_sync_end(struct gctx *thr) {
	if (thr && thr->ignore)
		thr->ignore--;
}

// ---- allocation ----

static void alloc_record(uint64_t kind, uptr p, uptr sz) {
	if (!spool || __atomic_load_n(&stopped, __ATOMIC_RELAXED))
		return;
	uint64_t i = __atomic_fetch_add(&hdr->next_malloc, 1, __ATOMIC_SEQ_CST);
	if ((i + 1) * 24 > MALLOC_BYTES) {
		// Without the record, freed memory reused by a new object would
		// look shared between them: cut the run here.
		__atomic_fetch_add(&hdr->overflow, 1, __ATOMIC_RELAXED);
		cut_here();
		return;
	}
	if ((i * 24) % POPULATE_BYTES < 24)
		populate(&malloc_area, (i * 24) / POPULATE_BYTES * POPULATE_BYTES + POPULATE_BYTES);
	uint64_t *w = (uint64_t *)(spool + HEADER_BYTES + i * 24);
	// In the making, for a live reader: stored before the sequence number
	// is taken, so a reader that has seen the number sees the mark.
	__atomic_store_n(&w[0], R_ALLOC_BUSY, __ATOMIC_RELAXED);
	w[1] = p;
	w[2] = sz;
	__atomic_store_n(&w[0], (next_seq() << 8) | kind, __ATOMIC_RELEASE);
	malloc_done(i);
}

void __tsan_malloc(void *thr, uptr pc, uptr p, uptr sz) {
	(void)thr;
	(void)pc;
	alloc_record(R_MALLOC, p, sz);
}
// Frees are not recorded: memory is only reused through a new allocation,
// whose record starts a new life at that address anyway, and sweeping
// frees far more objects than a test touches.
void __tsan_free(uptr p, uptr sz) {
	(void)p;
	(void)sz;
}

// ---- function entry and exit ----

// ENTER_SYNTH marks (in the pc of an R_ENTER record) the entry that
// __tsan_read_pc and __tsan_write_pc make for the runtime's accesses on a
// caller's behalf: how many of those a select makes depends on the random
// order it polls its cases in, so they do not count for replay.
#define ENTER_SYNTH (1ULL << 55)

static void func_enter_rec(struct gctx *thr, uptr pc, int synth) {
	rp_pre(thr, RP_REC);
	uint64_t *w = reserve(thr, 1);
	if (w) {
		sym(thr, pc);
		w[0] = ((uint64_t)(pc | (synth ? ENTER_SYNTH : 0)) << 8) | R_ENTER;
		commit(thr, 1);
		thr->entered = thr->chunk + CHUNK_HDR + thr->used;
	} else
		sym_pending(thr);
	if (rp && !synth)
		rp_record(thr, pc);
	if (ex && !synth)
		ex_record(thr, pc);
}

static void func_enter(struct gctx *thr, uptr pc) { func_enter_rec(thr, pc, 0); }

// seer_func_enter is __tsan_func_enter; its trampoline passes the g
// register, which the goroutine's parked synchronisation needs (parked_chain).
void seer_func_enter(struct gctx *thr, uptr pc, uptr *gp) {
	if (thr)
		thr->gp = gp;
	func_enter(thr, pc);
}

void __tsan_func_exit(struct gctx *thr) {
	rp_pre(thr, RP_EXIT);
	uint64_t *w = reserve(thr, 1);
	if (!w)
		return;
	w[0] = R_EXIT;
	commit(thr, 1);
}

// ---- plain accesses ----

// Plain accesses in two words: nineteen records in twenty of a TLS
// handshake are reads and writes, and every word of the spool is a word
// of a fresh page the kernel zeroes, which led the recorded test's own
// time (bench/RESULTS.md, branch rec). An access of size 1 (all that
// __tsan_read and __tsan_write make) whose sequence number fits 40 bits,
// its pc 32 and its address 47, as they do in a non-PIE Go binary on
// Linux, is written as R_READ2 or R_WRITE2: the sequence number, the
// pc's low 16 bits and the kind in the first word, the address and the
// pc's high 16 bits in the second. Any other is written in three words
// as before; the reader makes the same event of either.
#define SEQ2_LIMIT (1ULL << 40)
#define PC2_LIMIT (1ULL << 32)
#define ADDR2_LIMIT (1ULL << 47)

static inline void mem_access(struct gctx *thr, uint64_t kind, uptr addr, uptr size, uptr pc) {
	rp_pre(thr, RP_REC);
	uint64_t *w = reserve(thr, 3);
	if (w) {
		sym(thr, pc);
		uint64_t seq = next_seq();
		if (size == 1 && seq < SEQ2_LIMIT && pc < PC2_LIMIT && addr < ADDR2_LIMIT) {
			w[0] = (seq << 24) | ((uint64_t)(pc & 0xffff) << 8) | (kind == R_READ ? R_READ2 : R_WRITE2);
			w[1] = addr | ((uint64_t)(pc >> 16) << 47);
			commit(thr, 2);
		} else {
			w[0] = (seq << 8) | kind;
			w[1] = addr;
			w[2] = ((uint64_t)pc << 8) | (size & 0xff);
			commit(thr, 3);
		}
		count_event(thr);
	} else
		sym_pending(thr);
	if (rp)
		rp_record(thr, pc);
	if (ex)
		ex_record(thr, pc);
}

static inline void mem_access_range(struct gctx *thr, uint64_t kind, uptr addr, uptr size, uptr pc) {
	if (size == 0)
		return;
	rp_pre(thr, RP_REC);
	uint64_t *w = reserve(thr, 4);
	if (w) {
		sym(thr, pc);
		w[0] = (next_seq() << 8) | kind;
		w[1] = addr;
		w[2] = size;
		w[3] = pc;
		commit(thr, 4);
		count_event(thr);
	} else
		sym_pending(thr);
	if (rp)
		rp_record(thr, pc);
	if (ex)
		ex_record(thr, pc);
}

void __tsan_read(struct gctx *thr, void *addr, void *pc) { mem_access(thr, R_READ, (uptr)addr, 1, (uptr)pc); }
void __tsan_write(struct gctx *thr, void *addr, void *pc) { mem_access(thr, R_WRITE, (uptr)addr, 1, (uptr)pc); }

// pc_memo is a cache of a small answer (1, 2 or 3) per return address,
// each in one word: pc<<2 | answer (user-space addresses have their top
// bits clear), so that a racing writer can only replace an answer, never
// pair a pc with another's. in_runtime and atomic_pc_verdict keep theirs
// in one each.
#define PC_MEMO 4096

static inline uint64_t *pc_memo_slot(uint64_t *memo, uptr pc) {
	return &memo[(pc * 0x9E3779B97F4A7C15ULL) >> 52];
}

// pc_memo_get returns pc's answer, or 0 if none is kept.
static inline int pc_memo_get(uint64_t *memo, uptr pc) {
	uint64_t v = __atomic_load_n(pc_memo_slot(memo, pc), __ATOMIC_RELAXED);
	return (v >> 2) == pc ? (int)(v & 3) : 0;
}

static inline void pc_memo_put(uint64_t *memo, uptr pc, int answer) {
	__atomic_store_n(pc_memo_slot(memo, pc), ((uint64_t)pc << 2) | (uint64_t)answer, __ATOMIC_RELAXED);
}

// pc_frames calls visit on the frames of return address pc, innermost
// (inlined) first, as the symbolising callback names them, and returns
// the first answer visit gives other than -1, or -1 once the frames (at
// most 64) are done. It holds sym_lock: only for a user goroutine's
// hooks (see sym).
static int pc_frames(uptr pc, int (*visit)(const char *fn, uptr line, void *arg), void *arg) {
	struct symbolize_code_ctx c;
	uptr cur = pc - 1; // return address -> the call instruction
	int answer = -1;
	spin_lock(&sym_lock);
	for (int depth = 0; depth < 64; depth++) {
		memset(&c, 0, sizeof c);
		c.pc = cur;
		callback(1 /* raceSymbolizeCodeCmd */, &c);
		answer = visit(c.func, c.line, arg);
		if (answer >= 0 || c.pc == cur)
			break;
		cur = c.pc;
	}
	spin_unlock(&sym_lock);
	return answer;
}

// in_runtime reports whether the return address pc lies in a function of
// the runtime (package runtime or internal/runtime/...), which -race does
// not instrument: its own caller made no function entry. Answers are kept
// per pc (runtime_pcs: 1 for no, 2 for yes).
static uint64_t runtime_pcs[PC_MEMO];

// runtime_frame notes whether a frame is the runtime's in *arg; the last
// frame visited, the outermost of pc's inlined frames, is the function pc
// is in.
static int runtime_frame(const char *fn, uptr line, void *arg) {
	(void)line;
	*(int *)arg = fn && (strncmp(fn, "runtime.", 8) == 0 || strncmp(fn, "internal/runtime/", 17) == 0);
	return -1;
}

static int in_runtime(uptr pc) {
	int a = pc_memo_get(runtime_pcs, pc);
	if (a)
		return a == 2;
	int yes = 0;
	pc_frames(pc, runtime_frame, &yes);
	pc_memo_put(runtime_pcs, pc, yes ? 2 : 1);
	return yes;
}

static uint32_t walk_frames(uptr *bp, uptr *pcs, uint32_t max);
static int lost_frames(struct gctx *thr, uptr callpc, uptr *bp, uptr *lost);

// MAX_LOST_FRAMES bounds the runtime frames between an access's callpc
// and the instrumented code that called into the runtime.
#define MAX_LOST_FRAMES 4

// access_pc records an access that the runtime makes on its caller's
// behalf (racereadpc, racewritepc): tsan gives it one frame, callpc, the
// caller of the runtime function that reports it. When callpc is itself in
// the runtime, the instrumented code that called the runtime has no frame
// of its own; Go 1.27's mapaccess1 functions, for one, call mapaccess2,
// which reports the read with callpc in mapaccess1 (Go 1.26's reported it
// from mapaccess1 itself). The frames from the Go frame-pointer chain (bp,
// passed by the trampoline) up to the first instrumented one are entered
// first, so the access is at the user's line as before; without them it
// would be in the runtime only, where no finding is reported.
static void access_pc(struct gctx *thr, uint64_t kind, uptr addr, uptr callpc, uptr pc, uptr *bp) {
	uptr lost[MAX_LOST_FRAMES];
	int nlost = lost_frames(thr, callpc, bp, lost);
	for (int i = nlost - 1; i >= 0; i--)
		func_enter_rec(thr, lost[i], 1);
	func_enter_rec(thr, callpc, 1);
	mem_access(thr, kind, addr, 1, pc);
	__tsan_func_exit(thr);
	for (int i = 0; i < nlost; i++)
		__tsan_func_exit(thr);
}

// lost_frames stores in lost the return addresses between callpc, a
// return address in the runtime, and the first instrumented caller above
// it, innermost first, read from the Go frame-pointer chain at bp, and
// returns how many (0 when callpc is not in the runtime, is not among the
// chain's first frames, or no instrumented caller is within reach: then
// the access stays in the runtime, as tsan has it).
static int lost_frames(struct gctx *thr, uptr callpc, uptr *bp, uptr *lost) {
	if (!thr || thr->system || !callback || !in_runtime(callpc))
		return 0;
	uptr pcs[MAX_SYNC_PCS];
	uint32_t n = walk_frames(bp, pcs, MAX_SYNC_PCS);
	uint32_t i = 0;
	while (i < n && i < MAX_LOST_FRAMES + 2 && pcs[i] != callpc)
		i++;
	if (i >= n || pcs[i] != callpc)
		return 0;
	int nlost = 0;
	for (i++; i < n && nlost < MAX_LOST_FRAMES; i++) {
		lost[nlost++] = pcs[i];
		if (!in_runtime(pcs[i]))
			break;
	}
	if (nlost > 0 && in_runtime(lost[nlost - 1]))
		return 0;
	return nlost;
}

void seer_read_pc(struct gctx *thr, void *addr, void *callpc, void *pc, uptr *bp) {
	access_pc(thr, R_READ, (uptr)addr, (uptr)callpc, (uptr)pc, bp);
}

void seer_write_pc(struct gctx *thr, void *addr, void *callpc, void *pc, uptr *bp) {
	access_pc(thr, R_WRITE, (uptr)addr, (uptr)callpc, (uptr)pc, bp);
}

// access_range records a range access. The runtime reports one on a
// caller's behalf (racereadrangepc: a struct or array key, element or
// value the runtime copies) by entering callpc itself (racefuncenter) and
// then reporting the range at its own pc; when that callpc is in the
// runtime too (Go 1.27's mapaccess1 calling mapaccess2, as in access_pc),
// the instrumented caller's frame is lost. thr's last record is then that
// entry: it is taken back and made again above the lost frames, and
// after the access the stack is left as the runtime's exit expects. (An
// entry that ended its chunk is not looked for: the access then stays in
// the runtime.)
static void access_range(struct gctx *thr, uint64_t kind, uptr addr, uptr size, uptr pc, uptr *bp) {
	uptr lost[MAX_LOST_FRAMES];
	int nlost = 0;
	uptr callpc = 0;
	// The last word is an entry's only if the last record is one: the
	// last word of a two-word access (its address) may look like one.
	// Not for a context on g0: in_runtime calls back into Go.
	if (size && thr && !thr->system && thr->chunk && thr->used >= 8 && thr->entered == thr->chunk + CHUNK_HDR + thr->used) {
		uint64_t last = *(uint64_t *)(thr->chunk + CHUNK_HDR + thr->used - 8);
		callpc = (uptr)(last >> 8);
		if ((last & 0xff) == R_ENTER && !(callpc & ENTER_SYNTH) && in_runtime(pc))
			nlost = lost_frames(thr, callpc, bp, lost);
	}
	if (nlost == 0) {
		mem_access_range(thr, kind, addr, size, pc);
		return;
	}
	__tsan_func_exit(thr);
	for (int i = nlost - 1; i >= 0; i--)
		func_enter_rec(thr, lost[i], 1);
	func_enter_rec(thr, callpc, 1);
	mem_access_range(thr, kind, addr, size, pc);
	__tsan_func_exit(thr);
	for (int i = 0; i < nlost; i++)
		__tsan_func_exit(thr);
	func_enter_rec(thr, callpc, 1);
}

void seer_read_range(struct gctx *thr, void *addr, uptr size, void *pc, uptr *bp) {
	access_range(thr, R_READ_RANGE, (uptr)addr, size, (uptr)pc, bp);
}
void seer_write_range(struct gctx *thr, void *addr, uptr size, void *pc, uptr *bp) {
	access_range(thr, R_WRITE_RANGE, (uptr)addr, size, (uptr)pc, bp);
}

// ---- synchronisation ----

// walk_frames stores up to max return addresses of the Go frame-pointer
// chain starting at bp (a frame holds the caller's BP at [0] and the return
// address at [1]; frames are at increasing addresses).
static uint32_t walk_frames(uptr *bp, uptr *pcs, uint32_t max) {
	uint32_t n = 0;
	while (bp && n < max && ((uptr)bp & 7) == 0) {
		uptr ret = bp[1];
		if (!ret)
			break;
		pcs[n++] = ret;
		uptr *next = (uptr *)bp[0];
		if (next <= bp)
			break;
		bp = next;
	}
	return n;
}

// racectx_off is the offset of g.racectx in the runtime's g, found on the
// first annotation whose g holds thr (a word equal to a C heap pointer we
// handed out), or -1 until then.
static long racectx_off = -1;

// on_behalf reports whether an annotation for thr is made by another
// goroutine g (the runtime does this for a goroutine parked on a channel:
// racesync, racenotify and closechan annotate sg.g from the partner).
static int on_behalf(struct gctx *thr, uptr *g) {
	if (!g)
		return 0;
	long off = __atomic_load_n(&racectx_off, __ATOMIC_RELAXED);
	if (off >= 0)
		return g[off] != (uptr)thr;
	for (long i = 0; i < 512; i++) {
		if (g[i] == (uptr)thr) {
			__atomic_store_n(&racectx_off, i, __ATOMIC_RELAXED);
			return 0;
		}
	}
	return 0; // unknown until an own annotation is seen: assume own
}

// parked_chain stores the return addresses of the frame-pointer chain of
// the goroutine of thr, parked (gopark saved its frame pointer in
// g.sched.bp), and returns how many. It returns 0 unless the g that thr's
// last function entry saw has the layout this expects: g.stack (lo, hi),
// stackguard0, stackguard1, _panic, _defer, m, then sched (gobuf: sp, pc,
// g, ctxt, lr, bp), whose g points back at the g.
static uint32_t parked_chain(struct gctx *thr, uptr *pcs) {
	uptr *gp = thr->gp;
	if (!gp || ((uptr)gp & 7) != 0 || gp[9] != (uptr)gp)
		return 0;
	uptr lo = gp[0], hi = gp[1], bp = gp[12];
	if (bp < lo || bp >= hi)
		return 0;
	uint32_t n = walk_frames((uptr *)bp, pcs, MAX_SYNC_PCS);
	while (n > 0 && pcs[n - 1] == 0)
		n--;
	return n;
}

// sync_record records a synchronisation annotation with the first return
// addresses of the current goroutine's frame-pointer chain, starting at bp;
// g is the running goroutine (the runtime's g register).
static void sync_record(struct gctx *thr, uint64_t kind, uptr addr, uptr *bp, uptr *g) {
	if (!thr || thr->ignore)
		return;
	uint64_t behalf = on_behalf(thr, g);
	if (!behalf)
		rp_pre(thr, RP_OP);
	if (spool && __atomic_load_n(&stopped, __ATOMIC_RELAXED)) {
		// Past the cut nothing is recorded, but the hang watcher
		// (hangwatch.go.in) still takes an unchanged counter for "no
		// goroutine released another": the operation advances it. Its
		// frames are not walked.
		next_seq();
		if (!behalf) {
			rp_op(thr, RP_OP);
			ex_op(thr, RP_OP);
		}
		return;
	}
	uptr pcs[MAX_SYNC_PCS];
	uint32_t n = walk_frames(bp, pcs, MAX_SYNC_PCS);
	for (uint32_t i = 0; i < n; i++)
		queue_symbol(pcs[i]);
	// On behalf of a parked goroutine, the record also holds where that
	// goroutine is parked: its own chain follows the partner's, and the
	// high word says how long it is (1 + n2).
	uptr own[MAX_SYNC_PCS];
	uint32_t n2 = behalf ? parked_chain(thr, own) : 0;
	for (uint32_t i = 0; i < n2; i++)
		queue_symbol(own[i]);
	uint64_t *w = reserve(thr, 3 + n + n2);
	if (w) {
		w[0] = (next_seq() << 8) | kind;
		w[1] = addr;
		w[2] = (behalf ? (uint64_t)(1 + n2) << 32 : 0) | (n + n2);
		for (uint32_t i = 0; i < n; i++)
			w[3 + i] = pcs[i];
		for (uint32_t i = 0; i < n2; i++)
			w[3 + n + i] = own[i];
		commit(thr, 3 + n + n2);
		// RWMutex.Lock's second acquire makes no event (see "Stopping
		// at the event cap").
		if (kind != R_ACQUIRE || thr->last_sync != addr + 4)
			count_event(thr);
		thr->last_sync = addr;
	} else if (spool && __atomic_load_n(&stopped, __ATOMIC_RELAXED)) {
		next_seq(); // cut as it reserved: see above
	}
	if (!behalf) {
		rp_op(thr, RP_OP);
		ex_op(thr, RP_OP);
	}
}

void seer_acquire(struct gctx *thr, uptr addr, uptr *bp, uptr *g) { sync_record(thr, R_ACQUIRE, addr, bp, g); }
void seer_release(struct gctx *thr, uptr addr, uptr *bp, uptr *g) { sync_record(thr, R_RELEASE, addr, bp, g); }
void seer_release_merge(struct gctx *thr, uptr addr, uptr *bp, uptr *g) {
	sync_record(thr, R_RELEASE_MERGE, addr, bp, g);
}
void seer_release_acquire(struct gctx *thr, uptr addr, uptr *bp, uptr *g) {
	sync_record(thr, R_RELEASE_ACQUIRE, addr, bp, g);
}

// The trampolines pass the Go frame pointer (BP/R29, which racecall leaves
// untouched) and the g register (R14/R28) as the third and fourth arguments.
#if defined(__x86_64__)
#define TRAMPOLINE(name, target)                 \
	__asm__(".text\n"                        \
		".globl " #name "\n"             \
		".type " #name ",@function\n"    \
		#name ":\n"                      \
		"\tmovq %rbp, %rdx\n"            \
		"\tmovq %r14, %rcx\n"            \
		"\tjmp " #target "\n"            \
		".size " #name ", .-" #name "\n");
#elif defined(__aarch64__)
#define TRAMPOLINE(name, target)                 \
	__asm__(".text\n"                        \
		".globl " #name "\n"             \
		".type " #name ",%function\n"    \
		#name ":\n"                      \
		"\tmov x2, x29\n"                \
		"\tmov x3, x28\n"                \
		"\tb " #target "\n"              \
		".size " #name ", .-" #name "\n");
#else
#error "seer's recorder supports linux/amd64 and linux/arm64"
#endif

#if defined(__x86_64__)
#define TRAMPOLINE_G(name, target)               \
	__asm__(".text\n"                        \
		".globl " #name "\n"             \
		".type " #name ",@function\n"    \
		#name ":\n"                      \
		"\tmovq %r14, %rdx\n"            \
		"\tjmp " #target "\n"            \
		".size " #name ", .-" #name "\n");
#else
#define TRAMPOLINE_G(name, target)               \
	__asm__(".text\n"                        \
		".globl " #name "\n"             \
		".type " #name ",%function\n"    \
		#name ":\n"                      \
		"\tmov x2, x28\n"                \
		"\tb " #target "\n"              \
		".size " #name ", .-" #name "\n");
#endif

TRAMPOLINE_G(__tsan_func_enter, seer_func_enter)
TRAMPOLINE(__tsan_acquire, seer_acquire)
TRAMPOLINE(__tsan_release, seer_release)
TRAMPOLINE(__tsan_release_merge, seer_release_merge)
TRAMPOLINE(__tsan_release_acquire, seer_release_acquire)

// ---- atomics ----
//
// Each takes (thr, caller pc, pc, args) where args points at the Go
// function's argument block: the address at offset 0, operands and results
// after it (see runtime/race_amd64.s, racecallatomic). We perform the
// operation and take its sequence number under one per-address lock, so the
// recorded order of atomics on an address is their real order; a load
// checks the lock instead of taking it (below).
//
// An address's lock is a version, as a seqlock's (Boehm, "Can Seqlocks Get
// Along With Programming Language Memory Models?", MSPC'12, section 3):
// even while free, odd while an atomic that may change memory (a store,
// a read-modify-write, a compare-and-swap) holds it, and two more after
// each. A load takes no lock: it reads the version, the value and its
// sequence number, then the version again, and keeps them if the version
// was even and has not changed, else tries again. All are sequentially
// consistent, so a load kept read no value of an atomic that held the
// lock between its two reads: its number falls between the numbers of
// the atomics on the address in their real order, as if it had held the
// lock, and a value it read was stored, and its record written or marked
// pending (atomic_pending), before the lock was let go. What it saves:
// loads of one hot address (a sync.Map's root) no longer write the lock's
// cache line, nor wait for each other (bench/RESULTS.md, "syncmap's
// recorded test"). A number taken by a try that failed is never
// recorded; the reader never waits for a number, only for busy chunks.

static inline uint32_t *alock(uptr addr) { return &atomic_locks[(addr >> 3) & 4095]; }

// alock_take takes l for an atomic that may change memory and returns
// the odd version it holds it at.
static inline uint32_t alock_take(uint32_t *l) {
	for (;;) {
		uint32_t v = __atomic_load_n(l, __ATOMIC_RELAXED);
		if (!(v & 1) && __atomic_compare_exchange_n(l, &v, v + 1, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
			return v + 1;
		cpu_relax();
	}
}

static inline void alock_give(uint32_t *l, uint32_t v) { __atomic_store_n(l, v + 1, __ATOMIC_SEQ_CST); }

// atomic_words writes an atomic record's words up to its caller pc, as
// its only frame.
static inline void atomic_words(struct gctx *thr, uint64_t *w, uint64_t seq, uint32_t op, uint32_t flags, uint32_t size,
				uptr addr, uint64_t value, uint64_t old, uptr cpc) {
	if (thr->ignore)
		flags |= AF_NOSYNC;
	w[0] = (seq << 8) | R_ATOMIC;
	w[1] = addr;
	w[2] = ((uint64_t)op << 16) | (flags << 8) | size;
	w[3] = value;
	w[4] = old;
	w[5] = 1;
	w[6] = cpc;
}

// atomic_pending is called, under the address's lock, by an atomic that took
// effect, with the room hold made: it writes the record's first words there
// and marks it pending (see "Reading while recording"), and returns the
// room, or NULL if there is none.
static inline uint64_t *atomic_pending(struct gctx *thr, uint64_t *w, uint64_t seq, uint32_t op, uint32_t flags, uint32_t size,
				uptr addr, uint64_t value, uint64_t old, uptr cpc) {
	if (!w)
		return NULL;
	atomic_words(thr, w, seq, op, flags, size, addr, value, old, cpc);
	__atomic_store_n((uint32_t *)(thr->chunk + 4), thr->used | USED_BUSY | USED_PENDING, __ATOMIC_RELEASE);
	return w;
}

// atomic_record records an atomic, in held, the room atomic_pending marked, if not
// NULL: its words are there, and the rest of its frames go after them
// before their count says so.
static void atomic_record(struct gctx *thr, uint64_t *held, uint64_t seq, uint32_t op, uint32_t flags, uint32_t size,
			  uptr addr, uint64_t value, uint64_t old, uptr cpc, uptr *bp) {
	uptr pcs[MAX_ATOMIC_PCS];
	pcs[0] = cpc;
	uint32_t n = 1 + walk_frames(bp, pcs + 1, MAX_ATOMIC_PCS - 1);
	uint64_t *w = held ? held : reserve(thr, 6 + n);
	if (!w) {
		rp_op(thr, RP_ATOMIC);
		ex_op(thr, RP_ATOMIC);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		sym(thr, pcs[i]);
	if (!held)
		atomic_words(thr, w, seq, op, flags, size, addr, value, old, cpc);
	for (uint32_t i = 1; i < n; i++)
		w[6 + i] = pcs[i];
	__atomic_store_n(&w[5], n, __ATOMIC_RELEASE);
	commit(thr, 6 + n);
	rp_op(thr, RP_ATOMIC);
	ex_op(thr, RP_ATOMIC);
}

#define ARG(T, off) (*(T *)(a + (off)))

// Past the cut (the spool full, or the event cap reached) an atomic is
// recorded no more, so it is only performed: without its address's lock,
// its sequence number or its frames, which a test that goes on long past
// the cap paid for every atomic it made (bench/RESULTS.md, branch
// reccap). Atomics before the cut are unaffected: cut_here stores
// stopped (sequentially consistent) after it reads the counter, so an
// atomic that sees it takes effect after every atomic numbered up to the
// cut has, and no load kept in the trace reads a value stored past the
// cut. The hang watcher does not need atomics to advance the counter:
// none wakes a parked goroutine (a wake-up is a recorded release).
static inline int past_cut(void) { return __atomic_load_n(&stopped, __ATOMIC_SEQ_CST); }

static inline void atomic_past_cut(struct gctx *thr) {
	rp_op(thr, RP_ATOMIC);
	ex_op(thr, RP_ATOMIC);
}

// ---- atomics the converter drops ----
//
// Of the atomics a test makes, the converter drops those inside some sync
// primitives by their frames (trace/classify.go, atomicClass): on
// golang.org/x/sync/syncmap's test, sync.Map's (internal/sync.HashTrieMap)
// were most of the spool's words, each written, its pages zeroed by the
// kernel, and read back only to be dropped (bench/RESULTS.md, branches
// sync9 and atom). atomic_drops decides, by the frames of the pcs the
// record would hold (the caller pc, often sync/atomic's ABI wrapper, then
// the Go frame-pointer chain: atomic_record's), that the converter ignores
// the record; such an atomic is then only performed, as past the cut
// (atomic_past_cut): no lock, no sequence number, no frames, no room.
//
// The rule is trace/classify.go's recorderVerdict, which must stay in step
// with this one (trace's TestRecorderDropsRule reads this function's
// prefixes and runs both over one table): over the frames of the pcs in
// order, innermost inlined frame first, sync/atomic's skipped, a frame of
// internal/sync.(*HashTrieMap...), sync.(*copyChecker) or sync.(*Cond)
// decides drop; any other frame (or one not named) decides keep, and so
// does none left. Kept though atomicClass drops them: sync.Mutex's (the
// converter makes them reads, mutexInternal), WaitGroup's and RWMutex's
// (a race annotation right after one takes its stack, convert.go's
// lastPrim; WaitGroup.Add makes an event). The converter ignores the
// records this rule selects whether or not the recorder wrote them
// (convert.go's visit), so the trace is the same either way.
//
// Only when seer asks (ATOMIC_DROP_ENV, set when the trace needs no
// transactions of //seer:atomic functions, which an atomic's frames may
// begin, and no replay positions), and never on a system context: the
// symbolising callback must not run there (see sym).
//
// Verdicts are kept per pc (pc_memo): 1 for keep, 2 for drop, 3 for
// undecided (sync/atomic's frames only: the next pc decides).
static uint64_t atomic_pcs[PC_MEMO];

// atomic_frame_verdict is the rule for one frame: 1 drop, 0 keep, -1 look
// at the next (outer) frame.
static int atomic_frame_verdict(const char *fn, uptr line, void *arg) {
	(void)arg;
	if (!fn || !line || strcmp(fn, "??") == 0)
		return 0; // the converter names it by its pc: keep
	if (strncmp(fn, "sync/atomic.", 12) == 0)
		return -1;
	if (strncmp(fn, "internal/sync.(*HashTrieMap", 27) == 0 || strncmp(fn, "sync.(*copyChecker).", 20) == 0 ||
	    strncmp(fn, "sync.(*Cond).", 13) == 0)
		return 1;
	return 0;
}

// atomic_pc_verdict is the rule over the frames of pc: 1 drop, 0 keep, -1
// undecided.
static int atomic_pc_verdict(uptr pc) {
	int a = pc_memo_get(atomic_pcs, pc);
	if (a)
		return a == 3 ? -1 : a - 1;
	int verdict = pc_frames(pc, atomic_frame_verdict, NULL);
	pc_memo_put(atomic_pcs, pc, verdict < 0 ? 3 : verdict + 1);
	return verdict;
}

static int atomic_drops(struct gctx *thr, uptr cpc, uptr *bp) {
	if (!atomic_drop_on || !thr || thr->system || !callback || !cpc)
		return 0;
	int v = atomic_pc_verdict(cpc);
	if (v < 0) {
		uptr pcs[MAX_ATOMIC_PCS - 1];
		uint32_t n = walk_frames(bp, pcs, MAX_ATOMIC_PCS - 1);
		for (uint32_t i = 0; i < n && v < 0; i++)
			v = atomic_pc_verdict(pcs[i]);
	}
	return v == 1;
}

// atomic_dropped performs nothing more for a dropped atomic than
// atomic_past_cut does, and names the pcs other hooks queued (sym_pending).
static inline void atomic_dropped(struct gctx *thr) {
	sym_pending(thr);
	atomic_past_cut(thr);
}

#define ATOMIC_FUNCS(bits, T, RET)                                                                       \
	void seer_atomic##bits##_load(struct gctx *thr, uptr cpc, uptr pc, uint8_t *a, uptr *bp) {           \
		(void)pc;                                                                                \
		rp_pre(thr, RP_ATOMIC); ex_atomic(thr);                                                  \
		if (past_cut()) { ARG(T, 8) = __atomic_load_n(ARG(T *, 0), __ATOMIC_SEQ_CST); atomic_past_cut(thr); return; } \
		if (atomic_drops(thr, cpc, bp)) { ARG(T, 8) = __atomic_load_n(ARG(T *, 0), __ATOMIC_SEQ_CST); atomic_dropped(thr); return; } \
		(void)hold(thr);                                                                         \
		T *p = ARG(T *, 0);                                                                      \
		uint32_t *l = alock((uptr)p);                                                            \
		T v;                                                                                     \
		uint64_t s;                                                                              \
		for (;;) {                                                                               \
			uint32_t ver = __atomic_load_n(l, __ATOMIC_SEQ_CST);                             \
			if (ver & 1) {                                                                   \
				cpu_relax();                                                             \
				continue;                                                                \
			}                                                                                \
			v = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                        \
			s = next_seq();                                                                  \
			if (__atomic_load_n(l, __ATOMIC_SEQ_CST) == ver)                                 \
				break;                                                                   \
		}                                                                                        \
		ARG(T, 8) = v;                                                                           \
		atomic_record(thr, NULL, s, A_LOAD, 0, sizeof(T), (uptr)p, v, 0, cpc, bp);               \
	}                                                                                                \
	void seer_atomic##bits##_store(struct gctx *thr, uptr cpc, uptr pc, uint8_t *a, uptr *bp) {          \
		(void)pc;                                                                                \
		rp_pre(thr, RP_ATOMIC); ex_atomic(thr);                                                  \
		if (past_cut()) { __atomic_store_n(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_past_cut(thr); return; } \
		if (atomic_drops(thr, cpc, bp)) { __atomic_store_n(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_dropped(thr); return; } \
		uint64_t *w = hold(thr);                                                                 \
		T *p = ARG(T *, 0);                                                                      \
		T v = ARG(T, 8);                                                                         \
		uint32_t *l = alock((uptr)p);                                                            \
		uint32_t lv = alock_take(l);                                                             \
		T old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                     \
		uint64_t s = next_seq();                                                                 \
		w = atomic_pending(thr, w, s, A_STORE, 0, sizeof(T), (uptr)p, v, old, cpc);              \
		alock_give(l, lv);                                                                       \
		atomic_record(thr, w, s, A_STORE, 0, sizeof(T), (uptr)p, v, old, cpc, bp);               \
	}                                                                                                \
	void seer_atomic##bits##_exchange(struct gctx *thr, uptr cpc, uptr pc, uint8_t *a, uptr *bp) {       \
		(void)pc;                                                                                \
		rp_pre(thr, RP_ATOMIC); ex_atomic(thr);                                                  \
		if (past_cut()) { ARG(T, RET) = __atomic_exchange_n(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_past_cut(thr); return; } \
		if (atomic_drops(thr, cpc, bp)) { ARG(T, RET) = __atomic_exchange_n(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_dropped(thr); return; } \
		uint64_t *w = hold(thr);                                                                 \
		T *p = ARG(T *, 0);                                                                      \
		T v = ARG(T, 8);                                                                         \
		uint32_t *l = alock((uptr)p);                                                            \
		uint32_t lv = alock_take(l);                                                             \
		T old = __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);                                     \
		uint64_t s = next_seq();                                                                 \
		w = atomic_pending(thr, w, s, A_SWAP, 0, sizeof(T), (uptr)p, v, old, cpc);               \
		alock_give(l, lv);                                                                       \
		ARG(T, RET) = old;                                                                       \
		atomic_record(thr, w, s, A_SWAP, 0, sizeof(T), (uptr)p, v, old, cpc, bp);                \
	}                                                                                                \
	void seer_atomic##bits##_fetch_add(struct gctx *thr, uptr cpc, uptr pc, uint8_t *a, uptr *bp) {      \
		(void)pc;                                                                                \
		rp_pre(thr, RP_ATOMIC); ex_atomic(thr);                                                  \
		if (past_cut()) { ARG(T, RET) = __atomic_fetch_add(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_past_cut(thr); return; } \
		if (atomic_drops(thr, cpc, bp)) { ARG(T, RET) = __atomic_fetch_add(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_dropped(thr); return; } \
		uint64_t *w = hold(thr);                                                                 \
		T *p = ARG(T *, 0);                                                                      \
		T d = ARG(T, 8);                                                                         \
		uint32_t *l = alock((uptr)p);                                                            \
		uint32_t lv = alock_take(l);                                                             \
		T old = __atomic_fetch_add(p, d, __ATOMIC_SEQ_CST);                                      \
		uint64_t s = next_seq();                                                                 \
		w = atomic_pending(thr, w, s, A_ADD, 0, sizeof(T), (uptr)p, (T)(old + d), old, cpc);     \
		alock_give(l, lv);                                                                       \
		ARG(T, RET) = old;                                                                       \
		atomic_record(thr, w, s, A_ADD, 0, sizeof(T), (uptr)p, (T)(old + d), old, cpc, bp);      \
	}                                                                                                \
	void seer_atomic##bits##_fetch_and(struct gctx *thr, uptr cpc, uptr pc, uint8_t *a, uptr *bp) {      \
		(void)pc;                                                                                \
		rp_pre(thr, RP_ATOMIC); ex_atomic(thr);                                                  \
		if (past_cut()) { ARG(T, RET) = __atomic_fetch_and(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_past_cut(thr); return; } \
		if (atomic_drops(thr, cpc, bp)) { ARG(T, RET) = __atomic_fetch_and(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_dropped(thr); return; } \
		uint64_t *w = hold(thr);                                                                 \
		T *p = ARG(T *, 0);                                                                      \
		T m = ARG(T, 8);                                                                         \
		uint32_t *l = alock((uptr)p);                                                            \
		uint32_t lv = alock_take(l);                                                             \
		T old = __atomic_fetch_and(p, m, __ATOMIC_SEQ_CST);                                      \
		uint64_t s = next_seq();                                                                 \
		w = atomic_pending(thr, w, s, A_AND, 0, sizeof(T), (uptr)p, (T)(old & m), old, cpc);     \
		alock_give(l, lv);                                                                       \
		ARG(T, RET) = old;                                                                       \
		atomic_record(thr, w, s, A_AND, 0, sizeof(T), (uptr)p, (T)(old & m), old, cpc, bp);      \
	}                                                                                                \
	void seer_atomic##bits##_fetch_or(struct gctx *thr, uptr cpc, uptr pc, uint8_t *a, uptr *bp) {       \
		(void)pc;                                                                                \
		rp_pre(thr, RP_ATOMIC); ex_atomic(thr);                                                  \
		if (past_cut()) { ARG(T, RET) = __atomic_fetch_or(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_past_cut(thr); return; } \
		if (atomic_drops(thr, cpc, bp)) { ARG(T, RET) = __atomic_fetch_or(ARG(T *, 0), ARG(T, 8), __ATOMIC_SEQ_CST); atomic_dropped(thr); return; } \
		uint64_t *w = hold(thr);                                                                 \
		T *p = ARG(T *, 0);                                                                      \
		T m = ARG(T, 8);                                                                         \
		uint32_t *l = alock((uptr)p);                                                            \
		uint32_t lv = alock_take(l);                                                             \
		T old = __atomic_fetch_or(p, m, __ATOMIC_SEQ_CST);                                       \
		uint64_t s = next_seq();                                                                 \
		w = atomic_pending(thr, w, s, A_OR, 0, sizeof(T), (uptr)p, (T)(old | m), old, cpc);      \
		alock_give(l, lv);                                                                       \
		ARG(T, RET) = old;                                                                       \
		atomic_record(thr, w, s, A_OR, 0, sizeof(T), (uptr)p, (T)(old | m), old, cpc, bp);       \
	}

// 32-bit: operand at +8, result at +16 (CAS: old +8, new +12, result +16).
ATOMIC_FUNCS(32, uint32_t, 16)
// 64-bit: operand at +8, result at +16 (CAS: old +8, new +16, result +24).
ATOMIC_FUNCS(64, uint64_t, 16)

#define CAS_FUNC(bits, T, NEW, RES)                                                                       \
	void seer_atomic##bits##_compare_exchange(struct gctx *thr, uptr cpc, uptr pc, uint8_t *a, uptr *bp) { \
		(void)pc;                                                                                 \
		rp_pre(thr, RP_ATOMIC); ex_atomic(thr);                                                   \
		if (past_cut() || atomic_drops(thr, cpc, bp)) {                                                \
			T cur = ARG(T, 8);                                                                        \
			ARG(uint8_t, RES) = __atomic_compare_exchange_n(ARG(T *, 0), &cur, ARG(T, NEW), 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
			atomic_past_cut(thr);                                                                     \
			return;                                                                                   \
		}                                                                                           \
		uint64_t *w = hold(thr);                                                                  \
		T *p = ARG(T *, 0);                                                                       \
		T expect = ARG(T, 8);                                                                     \
		T desired = ARG(T, NEW);                                                                  \
		T cur = expect;                                                                           \
		uint32_t *l = alock((uptr)p);                                                             \
		uint32_t lv = alock_take(l);                                                              \
		int ok = __atomic_compare_exchange_n(p, &cur, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
		uint64_t s = next_seq();                                                                  \
		if (ok)                                                                                   \
			w = atomic_pending(thr, w, s, A_CAS, 0, sizeof(T), (uptr)p, desired, expect, cpc);       \
		alock_give(l, lv);                                                                        \
		ARG(uint8_t, RES) = ok;                                                                   \
		if (ok)                                                                                   \
			atomic_record(thr, w, s, A_CAS, 0, sizeof(T), (uptr)p, desired, expect, cpc, bp);        \
		else                                                                                      \
			atomic_record(thr, NULL, s, A_CAS, AF_FAILED, sizeof(T), (uptr)p, cur, cur, cpc, bp);    \
	}

CAS_FUNC(32, uint32_t, 12, 16)
CAS_FUNC(64, uint64_t, 16, 24)

// The atomic hooks' caller pc may be an ABI wrapper's; their trampolines
// pass the Go frame pointer (fifth argument) so the record can name the
// real caller.
#if defined(__x86_64__)
#define TRAMPOLINE5(name, target)                \
	__asm__(".text\n"                        \
		".globl " #name "\n"             \
		".type " #name ",@function\n"    \
		#name ":\n"                      \
		"\tmovq %rbp, %r8\n"             \
		"\tjmp " #target "\n"            \
		".size " #name ", .-" #name "\n");
#else
#define TRAMPOLINE5(name, target)                \
	__asm__(".text\n"                        \
		".globl " #name "\n"             \
		".type " #name ",%function\n"    \
		#name ":\n"                      \
		"\tmov x4, x29\n"                \
		"\tb " #target "\n"              \
		".size " #name ", .-" #name "\n");
#endif

// __tsan_read_pc, __tsan_write_pc and the range accesses pass the Go
// frame pointer too (see access_pc, access_range).
TRAMPOLINE5(__tsan_read_pc, seer_read_pc)
TRAMPOLINE5(__tsan_write_pc, seer_write_pc)
TRAMPOLINE5(__tsan_read_range, seer_read_range)
TRAMPOLINE5(__tsan_write_range, seer_write_range)

#define ATOMIC_TRAMPOLINES(bits)                                                       \
	TRAMPOLINE5(__tsan_go_atomic##bits##_load, seer_atomic##bits##_load)             \
	TRAMPOLINE5(__tsan_go_atomic##bits##_store, seer_atomic##bits##_store)           \
	TRAMPOLINE5(__tsan_go_atomic##bits##_exchange, seer_atomic##bits##_exchange)     \
	TRAMPOLINE5(__tsan_go_atomic##bits##_fetch_add, seer_atomic##bits##_fetch_add)   \
	TRAMPOLINE5(__tsan_go_atomic##bits##_fetch_and, seer_atomic##bits##_fetch_and)   \
	TRAMPOLINE5(__tsan_go_atomic##bits##_fetch_or, seer_atomic##bits##_fetch_or)     \
	TRAMPOLINE5(__tsan_go_atomic##bits##_compare_exchange, seer_atomic##bits##_compare_exchange)

ATOMIC_TRAMPOLINES(32)
ATOMIC_TRAMPOLINES(64)

// ---- hang watch ----
//
// The shadow runtime's hang watcher (hangwatch.go.in) calls this once, from
// its init, through racecall: it gets the address of the sequence counter
// that every record advances, and learns that a goroutine's race context
// starts with its gid (struct gctx). A process that records nothing (a
// test's child that found the spool claimed) gets 0, and watches nothing:
// without the counter, the watcher could not tell a quiet run from one in
// which goroutines hand each other work between its samples.
void seer_hang_init(uptr *seq_addr) {
	*seq_addr = spool ? (uptr)seq_ptr : 0;
}

// ---- goroutines asleep, for replay ----
//
// The shadow runtime (hangwatch.go.in) hands seer_runtime_layout, from its
// init, where a g keeps its status, wait reason and wait list (sudogs),
// where a sudog keeps its channel and the next sudog, and where a channel
// keeps the timer that feeds it, and the values of _Gwaiting and of the
// wait reasons sleep, chan receive and select (LAYOUT_*). g_asleep reads a
// goroutine's state through them, racily: it only steers replay (rp_wait
// does not count the time that the goroutine whose turn it is sleeps),
// never decides what the recording shows, and a g and its sudogs are Go
// heap memory, which stays mapped.
enum { LAYOUT_STATUS, LAYOUT_REASON, LAYOUT_WAITING, LAYOUT_SUDOG_C, LAYOUT_SUDOG_NEXT, LAYOUT_CHAN_TIMER,
	LAYOUT_GWAITING, LAYOUT_SLEEP, LAYOUT_RECV, LAYOUT_SELECT, LAYOUT_N };
static uptr glayout[LAYOUT_N];
static int glayout_ok;

void seer_runtime_layout(const uptr *l, uptr n) {
	if (n < LAYOUT_N)
		return;
	memcpy(glayout, l, sizeof glayout);
	__atomic_store_n(&glayout_ok, 1, __ATOMIC_RELEASE);
}

// g_asleep reports whether thr's goroutine is parked in time.Sleep, or in
// a receive or select one of whose channels a timer feeds (time.After,
// time.NewTimer, a Ticker): a timer, not another goroutine, wakes it.
static int g_asleep(struct gctx *thr) {
	if (!thr || !__atomic_load_n(&glayout_ok, __ATOMIC_ACQUIRE))
		return 0;
	uint8_t *gp = (uint8_t *)__atomic_load_n(&thr->gp, __ATOMIC_RELAXED);
	if (!gp)
		return 0;
	uint32_t status = __atomic_load_n((uint32_t *)(gp + glayout[LAYOUT_STATUS]), __ATOMIC_ACQUIRE) & ~0x1000u; // _Gscan
	if (status != glayout[LAYOUT_GWAITING])
		return 0;
	uint8_t reason = __atomic_load_n(gp + glayout[LAYOUT_REASON], __ATOMIC_RELAXED);
	if (reason == glayout[LAYOUT_SLEEP])
		return 1;
	if (reason != glayout[LAYOUT_RECV] && reason != glayout[LAYOUT_SELECT])
		return 0;
	uint8_t *sg = (uint8_t *)__atomic_load_n((uptr *)(gp + glayout[LAYOUT_WAITING]), __ATOMIC_RELAXED);
	for (int i = 0; sg && i < 64; i++) { // a select waits on each of its cases' channels
		uint8_t *c = (uint8_t *)__atomic_load_n((uptr *)(sg + glayout[LAYOUT_SUDOG_C]), __ATOMIC_RELAXED);
		if (c && __atomic_load_n((uptr *)(c + glayout[LAYOUT_CHAN_TIMER]), __ATOMIC_RELAXED))
			return 1;
		sg = (uint8_t *)__atomic_load_n((uptr *)(sg + glayout[LAYOUT_SUDOG_NEXT]), __ATOMIC_RELAXED);
	}
	return 0;
}
