(module
 (type $0 (func (result i32)))
 (type $1 (func (param i32 i32) (result i32)))
 (type $2 (func (param i32 i32 i32) (result i32)))
 (import "env" "memory" (memory $0 1 1))
 (data $0 (i32.const 4440) "\t\00\00\00\t\00\00\00Embargoed")
 (export "Order.Request" (func $Order.Request))
 (export "Order.CheckCrate" (func $Order.CheckCrate))
 (export "Order.Confirm" (func $Order.Confirm))
 (export "Order.Pay" (func $Order.Pay))
 (export "Order.Ship" (func $Order.Ship))
 (func $Order.Request (result i32)
  (local $0 i32)
  (local $1 i64)
  (local $2 i64)
  (local $3 i32)
  (if
   (i32.gt_u
    (i32.load offset=4
     (i32.const 3200)
    )
    (i32.const 200)
   )
   (then
    (return
     (i32.const 1)
    )
   )
  )
  (if
   (i32.gt_u
    (i32.load offset=4
     (i32.const 4008)
    )
    (i32.const 100)
   )
   (then
    (return
     (i32.const 2)
    )
   )
  )
  (if
   (i32.eqz
    (i32.eq
     (i32.load
      (i32.const 160)
     )
     (i32.const 0)
    )
   )
   (then
    (return
     (i32.const 3)
    )
   )
  )
  (if
   (i32.eqz
    (i64.gt_s
     (i64.load
      (i32.const 4416)
     )
     (i64.const 0)
    )
   )
   (then
    (return
     (i32.const 4)
    )
   )
  )
  (if
   (i32.eqz
    (i64.gt_s
     (i64.load
      (i32.const 4424)
     )
     (i64.const 0)
    )
   )
   (then
    (return
     (i32.const 5)
    )
   )
  )
  (local.set $0
   (i32.const 1)
  )
  (memory.copy
   (i32.const 1684)
   (i32.const 3200)
   (i32.add
    (i32.load
     (i32.const 3200)
    )
    (i32.const 8)
   )
  )
  (memory.copy
   (i32.const 2492)
   (i32.const 4008)
   (i32.add
    (i32.load
     (i32.const 4008)
    )
    (i32.const 8)
   )
  )
  (local.set $1
   (i64.load
    (i32.const 4416)
   )
  )
  (local.set $2
   (i64.load
    (i32.const 4424)
   )
  )
  (local.set $3
   (i32.load
    (i32.const 4432)
   )
  )
  (memory.copy
   (i32.const 2936)
   (i32.const 16)
   (i32.const 132)
  )
  (i32.store
   (i32.const 160)
   (local.get $0)
  )
  (memory.copy
   (i32.const 164)
   (i32.const 1684)
   (i32.add
    (i32.load
     (i32.const 1684)
    )
    (i32.const 8)
   )
  )
  (memory.copy
   (i32.const 972)
   (i32.const 2492)
   (i32.add
    (i32.load
     (i32.const 2492)
    )
    (i32.const 8)
   )
  )
  (i64.store
   (i32.const 1384)
   (local.get $1)
  )
  (i64.store
   (i32.const 1392)
   (local.get $2)
  )
  (i32.store
   (i32.const 1412)
   (local.get $3)
  )
  (memory.copy
   (i32.const 1416)
   (i32.const 2936)
   (i32.const 132)
  )
  (i32.const 0)
 )
 (func $Order.CheckCrate (result i32)
  (local $0 i64)
  (if
   (i32.eqz
    (i32.eq
     (i32.load
      (i32.const 160)
     )
     (i32.const 1)
    )
   )
   (then
    (return
     (i32.const 1)
    )
   )
  )
  (if
   (i32.eqz
    (i64.lt_s
     (i64.load
      (i32.const 1400)
     )
     (i64.load
      (i32.const 1392)
     )
    )
   )
   (then
    (return
     (i32.const 2)
    )
   )
  )
  (local.set $0
   (block (result i64)
    (local.set $0
     (i64.add
      (i64.load
       (i32.const 1400)
      )
      (i64.const 1)
     )
    )
    (if
     (i64.lt_s
      (i64.and
       (i64.xor
        (i64.load
         (i32.const 1400)
        )
        (local.get $0)
       )
       (i64.xor
        (i64.const 1)
        (local.get $0)
       )
      )
      (i64.const 0)
     )
     (then
      (return
       (i32.const 3)
      )
     )
    )
    (local.get $0)
   )
  )
  (i64.store
   (i32.const 1400)
   (local.get $0)
  )
  (i32.const 0)
 )
 (func $mem_eq (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (loop $words
   (block $words_done
    (block
     (br_if $words_done
      (i32.lt_u
       (local.get $2)
       (i32.const 8)
      )
     )
     (if
      (i64.ne
       (i64.load align=1
        (local.get $0)
       )
       (i64.load align=1
        (local.get $1)
       )
      )
      (then
       (return
        (i32.const 0)
       )
      )
      (else
       (block
        (local.set $0
         (i32.add
          (local.get $0)
          (i32.const 8)
         )
        )
        (local.set $1
         (i32.add
          (local.get $1)
          (i32.const 8)
         )
        )
        (local.set $2
         (i32.sub
          (local.get $2)
          (i32.const 8)
         )
        )
       )
       (br $words)
      )
     )
    )
   )
  )
  (loop $bytes (result i32)
   (if
    (i32.eqz
     (local.get $2)
    )
    (then
     (return
      (i32.const 1)
     )
    )
   )
   (if (result i32)
    (i32.ne
     (i32.load8_u
      (local.get $0)
     )
     (i32.load8_u
      (local.get $1)
     )
    )
    (then
     (i32.const 0)
    )
    (else
     (block
      (local.set $0
       (i32.add
        (local.get $0)
        (i32.const 1)
       )
      )
      (local.set $1
       (i32.add
        (local.get $1)
        (i32.const 1)
       )
      )
      (local.set $2
       (i32.sub
        (local.get $2)
        (i32.const 1)
       )
      )
     )
     (br $bytes)
    )
   )
  )
 )
 (func $ident_eq (param $0 i32) (param $1 i32) (result i32)
  (if (result i32)
   (i32.ne
    (i32.load
     (local.get $0)
    )
    (i32.load
     (local.get $1)
    )
   )
   (then
    (i32.const 0)
   )
   (else
    (if (result i32)
     (i32.eqz
      (i32.load
       (local.get $0)
      )
     )
     (then
      (i32.const 1)
     )
     (else
      (call $mem_eq
       (i32.add
        (local.get $0)
        (i32.const 4)
       )
       (i32.add
        (local.get $1)
        (i32.const 4)
       )
       (i32.sub
        (i32.load
         (local.get $0)
        )
        (i32.const 1)
       )
      )
     )
    )
   )
  )
 )
 (func $Order.Confirm (result i32)
  (local $0 i32)
  (if
   (i32.eqz
    (i32.eq
     (i32.load
      (i32.const 160)
     )
     (i32.const 1)
    )
   )
   (then
    (return
     (i32.const 1)
    )
   )
  )
  (if
   (i32.eqz
    (i32.eqz
     (call $ident_eq
      (i32.const 16)
      (i32.const 1416)
     )
    )
   )
   (then
    (return
     (i32.const 2)
    )
   )
  )
  (local.set $0
   (i32.const 2)
  )
  (memory.copy
   (i32.const 3068)
   (i32.const 16)
   (i32.const 132)
  )
  (i32.store
   (i32.const 160)
   (local.get $0)
  )
  (memory.copy
   (i32.const 1548)
   (i32.const 3068)
   (i32.const 132)
  )
  (i32.const 0)
 )
 (func $Order.Pay (result i32)
  (local $0 i32)
  (if
   (i32.eqz
    (i32.eqz
     (i32.eq
      (i32.load
       (i32.const 160)
      )
      (i32.const 0)
     )
    )
   )
   (then
    (return
     (i32.const 1)
    )
   )
  )
  (if
   (i32.eqz
    (i32.eq
     (i32.load
      (i32.const 1408)
     )
     (i32.const 0)
    )
   )
   (then
    (return
     (i32.const 2)
    )
   )
  )
  (local.set $0
   (i32.const 1)
  )
  (i32.store
   (i32.const 1408)
   (local.get $0)
  )
  (i32.const 0)
 )
 (func $text_eq (param $0 i32) (param $1 i32) (result i32)
  (if (result i32)
   (i32.ne
    (i32.load
     (local.get $0)
    )
    (i32.load
     (local.get $1)
    )
   )
   (then
    (i32.const 0)
   )
   (else
    (call $mem_eq
     (i32.add
      (local.get $0)
      (i32.const 8)
     )
     (i32.add
      (local.get $1)
      (i32.const 8)
     )
     (i32.load
      (local.get $0)
     )
    )
   )
  )
 )
 (func $Order.Ship (result i32)
  (local $0 i32)
  (if
   (i32.eqz
    (if (result i32)
     (i32.load
      (i32.const 1408)
     )
     (then
      (i32.const 1)
     )
     (else
      (i32.load
       (i32.const 1412)
      )
     )
    )
   )
   (then
    (return
     (i32.const 1)
    )
   )
  )
  (if
   (i32.eqz
    (i64.eq
     (i64.load
      (i32.const 1400)
     )
     (i64.load
      (i32.const 1392)
     )
    )
   )
   (then
    (return
     (i32.const 2)
    )
   )
  )
  (if
   (i32.eqz
    (if (result i32)
     (i32.eq
      (i32.load
       (i32.const 160)
      )
      (i32.const 1)
     )
     (then
      (i32.const 1)
     )
     (else
      (i32.eq
       (i32.load
        (i32.const 160)
       )
       (i32.const 2)
      )
     )
    )
   )
   (then
    (return
     (i32.const 3)
    )
   )
  )
  (if
   (i32.eqz
    (if (result i32)
     (i32.eq
      (i32.load
       (i32.const 160)
      )
      (i32.const 2)
     )
     (then
      (i32.const 1)
     )
     (else
      (i64.le_s
       (i64.load
        (i32.const 1384)
       )
       (i64.const 100)
      )
     )
    )
   )
   (then
    (return
     (i32.const 4)
    )
   )
  )
  (if
   (i32.eqz
    (if (result i32)
     (i32.eq
      (i32.load
       (i32.const 160)
      )
      (i32.const 2)
     )
     (then
      (i32.const 1)
     )
     (else
      (i32.eqz
       (call $text_eq
        (i32.const 972)
        (i32.const 4440)
       )
      )
     )
    )
   )
   (then
    (return
     (i32.const 5)
    )
   )
  )
  (local.set $0
   (i32.const 3)
  )
  (i32.store
   (i32.const 160)
   (local.get $0)
  )
  (i32.const 0)
 )
)
