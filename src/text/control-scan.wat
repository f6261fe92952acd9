;; SPEC §5's control-byte test in one pass over a text head, 16 bytes a step (SIMD).
;; scan(p, len) over memory[p, p + len): bit 0 = a control byte Read calls binary (C0 but tab,
;; LF, VT, FF, CR and ESC; and DEL), bit 1 = a byte >= 0x80.
;; Controls by table: swizzle picks lane v of $lo (bytes 0x00-0x0f) and lane v - 16 of $hi
;; (0x10-0x1f); any other index gives 0. The tail (< 16 bytes) goes byte by byte.
;; Memory: 18 pages: [0, 8 KiB) for heads copied in, [8 KiB, 8 KiB + 1 MiB) a buffer Grep reads files into.
;; Assembled by src/text/control-scan.ts's test with wabt (wat2wasm); the bytes are in control-scan.ts.
(module
  (memory (export "memory") 18)
  (func (export "scan") (param $p i32) (param $len i32) (result i32)
    (local $end i32) (local $v v128) (local $ctrl v128) (local $or v128) (local $b i32) (local $flags i32)
    (local $lo v128) (local $hi v128) (local $sixteen v128) (local $del v128)
    (local.set $lo (v128.const i8x16 1 1 1 1 1 1 1 1 1 0 0 0 0 0 1 1))
    (local.set $hi (v128.const i8x16 1 1 1 1 1 1 1 1 1 1 1 0 1 1 1 1))
    (local.set $sixteen (i8x16.splat (i32.const 16)))
    (local.set $del (i8x16.splat (i32.const 0x7f)))
    (local.set $end (i32.add (local.get $p) (local.get $len)))
    (block $vec_done
      (loop $vec
        (br_if $vec_done (i32.gt_u (i32.add (local.get $p) (i32.const 16)) (local.get $end)))
        (local.set $v (v128.load (local.get $p)))
        (local.set $or (v128.or (local.get $or) (local.get $v)))
        (local.set $ctrl
          (v128.or (local.get $ctrl)
            (v128.or
              (v128.or
                (i8x16.swizzle (local.get $lo) (local.get $v))
                (i8x16.swizzle (local.get $hi) (i8x16.sub (local.get $v) (local.get $sixteen))))
              (i8x16.eq (local.get $v) (local.get $del)))))
        (local.set $p (i32.add (local.get $p) (i32.const 16)))
        (br $vec)))
    (if (v128.any_true (local.get $ctrl)) (then (local.set $flags (i32.const 1))))
    (if (i8x16.bitmask (local.get $or)) (then (local.set $flags (i32.or (local.get $flags) (i32.const 2)))))
    (block $done
      (loop $byte
        (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $b (i32.load8_u (local.get $p)))
        (if (i32.ge_u (local.get $b) (i32.const 0x80)) (then (local.set $flags (i32.or (local.get $flags) (i32.const 2)))))
        (if (i32.or
              (i32.eq (local.get $b) (i32.const 0x7f))
              (i32.and
                (i32.lt_u (local.get $b) (i32.const 0x20))
                (i32.and
                  (i32.ge_u (i32.sub (local.get $b) (i32.const 9)) (i32.const 5))
                  (i32.ne (local.get $b) (i32.const 0x1b)))))
          (then (local.set $flags (i32.or (local.get $flags) (i32.const 1)))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (br $byte)))
    (local.get $flags)))
