// The trace format written by libStrataIOTrace.so (Sources/CStrataIOTrace/IOTrace.c), the
// LD_PRELOAD interposer of strata-bench's power-loss stress. This header is the contract between
// the interposer and its reader (StrataBench's Stress/Trace/IOTrace.swift); nothing links it.
//
// A trace file is a file header, then records, each written with one write(2)/writev(2) on an
// O_APPEND descriptor so that a SIGKILL loses at most the record in flight (a truncated tail).
// All integers are in the byte order of the machine that wrote them: little-endian on every
// platform Strata supports, and the reader reads little-endian (a big-endian trace's version
// reads as a newer one, so it is rejected rather than misread).
//
// File header (IOTRACE_FILE_HEADER_SIZE bytes, then `root_length` bytes of the root directory,
// absolute, not NUL-terminated):
//   magic[8] "STRIOTRC" | version u32 | header_size u32 (fixed part + root) | pid u32 | root_length u32
//
// Record: the 56-byte header below, then `size - 56` bytes of data:
//   write:     the bytes written (`length` of them; a failed write has none)
//   open:      the path, relative to the root ("." is the root itself)
//   snapshot:  path, NUL, the file's contents (`length` bytes) — a file that existed before the
//              traced process first touched it, recorded when it first gets a file id
//   rename:    old path, NUL, new path (both relative to the root)
//   unlink:    the path
//   ack:       the bytes the process wrote to its acknowledgement descriptor
// `checksum` is FNV-1a 32 over the record header (with checksum = 0) and the data.
//
// A file id names one file (device and inode) under the root for the whole trace: every open of
// it gets the same id, and a rename keeps it. 0 means "no file".
#ifndef CSTRATA_IOTRACE_H
#define CSTRATA_IOTRACE_H

#include <stdint.h>

#define IOTRACE_MAGIC "STRIOTRC"
#define IOTRACE_VERSION 1u
#define IOTRACE_FILE_HEADER_SIZE 24u
#define IOTRACE_RECORD_HEADER_SIZE 56u

enum iotrace_kind {
    IOTRACE_OPEN = 1,            // file, result = fd, aux = open flags; flags CREATED, DIRECTORY, TRUNCATED
    IOTRACE_CLOSE = 2,           // file, result = fd
    IOTRACE_WRITE = 3,           // file, offset, length, data; flags MAPPED, SYNC, FAILED
    IOTRACE_FSYNC = 4,           // file
    IOTRACE_FDATASYNC = 5,       // file
    IOTRACE_SYNC_FILE_RANGE = 6, // file, offset, length, aux = flags (never makes anything durable)
    IOTRACE_MSYNC = 7,           // file, offset (in the file), length, aux = MS_* flags
    IOTRACE_TRUNCATE = 8,        // file, length = new size
    IOTRACE_FALLOCATE = 9,       // file, offset, length, aux = mode (posix_fallocate: mode 0)
    IOTRACE_RENAME = 10,         // file = the renamed file, file2 = the file replaced (0 none), aux = renameat2 flags
    IOTRACE_UNLINK = 11,         // file, aux = unlinkat flags (AT_REMOVEDIR)
    IOTRACE_ACK = 12,            // data = the acknowledgement bytes
    IOTRACE_MMAP = 13,           // file, offset, length, aux = prot (writable MAP_SHARED mappings only)
    IOTRACE_MUNMAP = 14,         // file, offset, length
    IOTRACE_SNAPSHOT = 15,       // file, length = content length; flag DIRECTORY for a directory
    IOTRACE_EXIT = 16,           // the process ended normally (after the last scan of mappings)
};

enum iotrace_flag {
    IOTRACE_FLAG_FAILED = 1,     // the operation failed (result = errno) and changed nothing
    IOTRACE_FLAG_MAPPED = 2,     // a write found in a shared mapping (a changed 4 KiB block)
    IOTRACE_FLAG_CREATED = 4,    // open with O_CREAT created the file
    IOTRACE_FLAG_DIRECTORY = 8,  // the file is a directory
    IOTRACE_FLAG_TRUNCATED = 16, // open with O_TRUNC of a file that existed: it is now empty
    IOTRACE_FLAG_SYNC = 32,      // durable when done (O_SYNC/O_DSYNC descriptor, RWF_SYNC/RWF_DSYNC)
    IOTRACE_FLAG_INJECTED = 64,  // the failure was injected (IOTRACE_FAIL_AT), the call never made
};

struct iotrace_record_header {
    uint32_t size;     // header + data, bytes
    uint32_t checksum; // FNV-1a 32 of header (checksum = 0) and data
    uint16_t kind;     // enum iotrace_kind
    uint16_t flags;    // enum iotrace_flag
    uint32_t tid;      // the calling thread (gettid)
    uint64_t seq;      // 1, 2, 3... in trace order
    uint32_t file;     // file id, 0 = none
    int32_t result;    // errno of a failed operation; the descriptor for open/close
    int64_t offset;
    int64_t length;
    uint32_t aux;
    uint32_t file2;
};

_Static_assert(sizeof(struct iotrace_record_header) == IOTRACE_RECORD_HEADER_SIZE, "record header layout");

#endif
