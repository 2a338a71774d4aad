;; The int8 dot-product kernel of VectorIndex (WebAssembly SIMD, fixed-width 128-bit).
;; int8-kernel.ts embeds the compiled bytes; regenerate them after an edit with
;;   npx -y -p wabt@1.0.39 wat2wasm packages/core/src/search/int8-dot.wat -o /tmp/int8-dot.wasm
;;   node -e "console.log(require('fs').readFileSync('/tmp/int8-dot.wasm').toString('base64'))"
;; and paste the base64 into int8-kernel.ts (a test checks the kernel against the JS one).
(module
  (memory (export "memory") 1)
  ;; out[r] = sum_{j < length} rows[r*stride + j] * q[j] as i32, for r in 0..n-1.
  ;; rows, q: int8 in [-127, 127] (never -128: two products then fit an i16 lane);
  ;; stride and length: multiples of 16, 16 <= length <= stride; out: 4-byte aligned.
  (func (export "dot") (param $rows i32) (param $n i32) (param $stride i32) (param $length i32) (param $q i32) (param $out i32)
    (local $end i32) (local $start i32) (local $p i32) (local $rowEnd i32) (local $qp i32) (local $acc v128) (local $v v128) (local $w v128)
    (local.set $end (i32.add (local.get $rows) (i32.mul (local.get $n) (local.get $stride))))
    (local.set $start (local.get $rows))
    (block $done
      (loop $row
        (br_if $done (i32.ge_u (local.get $start) (local.get $end)))
        (local.set $p (local.get $start))
        (local.set $rowEnd (i32.add (local.get $p) (local.get $length)))
        (local.set $qp (local.get $q))
        (local.set $acc (v128.const i32x4 0 0 0 0))
        (loop $col
          (local.set $v (v128.load (local.get $p)))
          (local.set $w (v128.load (local.get $qp)))
          ;; 16 products -> 8 pair sums (i16, at most 2 * 127 * 127) -> 4 i32 lanes
          (local.set $acc
            (i32x4.add (local.get $acc)
              (i32x4.extadd_pairwise_i16x8_s
                (i16x8.add
                  (i16x8.extmul_low_i8x16_s (local.get $v) (local.get $w))
                  (i16x8.extmul_high_i8x16_s (local.get $v) (local.get $w))))))
          (local.set $p (i32.add (local.get $p) (i32.const 16)))
          (local.set $qp (i32.add (local.get $qp) (i32.const 16)))
          (br_if $col (i32.lt_u (local.get $p) (local.get $rowEnd))))
        (i32.store (local.get $out)
          (i32.add
            (i32.add (i32x4.extract_lane 0 (local.get $acc)) (i32x4.extract_lane 1 (local.get $acc)))
            (i32.add (i32x4.extract_lane 2 (local.get $acc)) (i32x4.extract_lane 3 (local.get $acc)))))
        (local.set $out (i32.add (local.get $out) (i32.const 4)))
        (local.set $start (i32.add (local.get $start) (local.get $stride)))
        (br $row))))
)
