;; drop-pages.ts: posix_fadvise(POSIX_FADV_DONTNEED) on one file, through WASI (Node's node:wasi,
;; uvwasi), which is the only way Node reaches fadvise. drop(dir, path, length) opens `path`
;; (bytes at `path` in memory, relative to the preopened folder `dir`, symbolic links not
;; followed) read-only with no right but fd_advise, advises DONTNEED over the whole file, closes
;; it, and answers the WASI errno (0: done). The new descriptor is stored at address 0.
(module
  (import "wasi_snapshot_preview1" "path_open"
    (func $path_open (param i32 i32 i32 i32 i32 i64 i64 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_advise" (func $fd_advise (param i32 i64 i64 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_close" (func $fd_close (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "drop") (param $dir i32) (param $path i32) (param $length i32) (result i32)
    (local $err i32)
    ;; dirflags 0 (no symlink follow), oflags 0, rights: fd_advise (1 << 7), fdflags 0, fd at 0.
    (local.set $err
      (call $path_open (local.get $dir) (i32.const 0) (local.get $path) (local.get $length)
        (i32.const 0) (i64.const 0x80) (i64.const 0) (i32.const 0) (i32.const 0)))
    (if (local.get $err) (then (return (local.get $err))))
    ;; offset 0, length 0 (to the end), advice 4 (dontneed).
    (local.set $err (call $fd_advise (i32.load (i32.const 0)) (i64.const 0) (i64.const 0) (i32.const 4)))
    (drop (call $fd_close (i32.load (i32.const 0))))
    (local.get $err)))
