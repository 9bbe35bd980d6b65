(module
 (type $0 (func (result i32)))
 (type $1 (func (param i32 i32 i32) (result i32)))
 (type $2 (func (param i32 i32) (result i32)))
 (import "env" "memory" (memory $0 1 1))
 (export "Account.Open" (func $Account.Open))
 (export "Account.Move" (func $Account.Move))
 (export "Account.Split" (func $Account.Split))
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
 (func $Account.Open (result i32)
  (local $0 i32)
  (if
   (i32.eqz
    (if (result i32)
     (call $ident_eq
      (i32.const 176)
      (i32.const 800)
     )
     (then
      (i32.const 1)
     )
     (else
      (i32.eqz
       (call $ident_eq
        (i32.const 176)
        (i32.const 800)
       )
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
    (i32.gt_s
     (i32.load
      (i32.const 932)
     )
     (i32.const 10957)
    )
   )
   (then
    (return
     (i32.const 2)
    )
   )
  )
  (memory.copy
   (i32.const 496)
   (i32.const 800)
   (i32.const 132)
  )
  (local.set $0
   (i32.load
    (i32.const 932)
   )
  )
  (memory.copy
   (i32.const 632)
   (i32.const 936)
   (i32.const 132)
  )
  (memory.copy
   (i32.const 764)
   (i32.const 460)
   (i32.const 16)
  )
  (memory.copy
   (i32.const 176)
   (i32.const 496)
   (i32.const 132)
  )
  (i32.store
   (i32.const 308)
   (local.get $0)
  )
  (memory.copy
   (i32.const 312)
   (i32.const 632)
   (i32.const 132)
  )
  (memory.copy
   (i32.const 444)
   (i32.const 764)
   (i32.const 16)
  )
  (i32.const 0)
 )
 (func $Account.Move (result i32)
  (local $0 i64)
  (local $1 i64)
  (if
   (i32.eqz
    (i32.load
     (i32.const 176)
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
    (call $ident_eq
     (i32.const 176)
     (i32.const 16)
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
    (block (result i32)
     (local.set $0
      (block (result i64)
       (if
        (i64.eqz
         (i64.load
          (i32.const 808)
         )
        )
        (then
         (return
          (i32.const 3)
         )
        )
       )
       (i64.rem_s
        (i64.load
         (i32.const 800)
        )
        (i64.load
         (i32.const 808)
        )
       )
      )
     )
     (i64.eq
      (local.get $0)
      (i64.const 0)
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
    (block (result i32)
     (local.set $0
      (block (result i64)
       (local.set $0
        (i64.load
         (i32.const 800)
        )
       )
       (if
        (i64.eq
         (local.get $0)
         (i64.const -9223372036854775808)
        )
        (then
         (return
          (i32.const 5)
         )
        )
       )
       (i64.sub
        (i64.const 0)
        (local.get $0)
       )
      )
     )
     (local.set $1
      (block (result i64)
       (local.set $1
        (i64.mul
         (i64.load
          (i32.const 168)
         )
         (i64.const 2)
        )
       )
       (if
        (if (result i32)
         (i64.eq
          (i64.load
           (i32.const 168)
          )
          (i64.const -1)
         )
         (then
          (i64.eq
           (i64.const 2)
           (i64.const -9223372036854775808)
          )
         )
         (else
          (if (result i32)
           (i64.eqz
            (i64.load
             (i32.const 168)
            )
           )
           (then
            (i32.const 0)
           )
           (else
            (i64.ne
             (i64.div_s
              (local.get $1)
              (i64.load
               (i32.const 168)
              )
             )
             (i64.const 2)
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
       (local.get $1)
      )
     )
     (i64.lt_s
      (local.get $0)
      (local.get $1)
     )
    )
   )
   (then
    (return
     (i32.const 6)
    )
   )
  )
  (local.set $0
   (block (result i64)
    (local.set $0
     (i64.add
      (i64.load
       (i32.const 168)
      )
      (i64.const 5)
     )
    )
    (if
     (i64.lt_s
      (i64.and
       (i64.xor
        (i64.load
         (i32.const 168)
        )
        (local.get $0)
       )
       (i64.xor
        (i64.const 5)
        (local.get $0)
       )
      )
      (i64.const 0)
     )
     (then
      (return
       (i32.const 7)
      )
     )
    )
    (local.get $0)
   )
  )
  (i64.store
   (i32.const 168)
   (local.get $0)
  )
  (i32.const 0)
 )
 (func $Account.Split (result i32)
  (local $0 i64)
  (local $1 i64)
  (local $2 i32)
  (if
   (i32.eqz
    (i32.load
     (i32.const 176)
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
    (call $ident_eq
     (i32.const 176)
     (i32.const 16)
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
    (block (result i32)
     (local.set $0
      (block (result i64)
       (if
        (i64.eqz
         (i64.load
          (i32.const 808)
         )
        )
        (then
         (return
          (i32.const 3)
         )
        )
       )
       (if
        (i32.and
         (i64.eq
          (i64.load
           (i32.const 800)
          )
          (i64.const -9223372036854775808)
         )
         (i64.eq
          (i64.load
           (i32.const 808)
          )
          (i64.const -1)
         )
        )
        (then
         (return
          (i32.const 4)
         )
        )
       )
       (i64.div_s
        (i64.load
         (i32.const 800)
        )
        (i64.load
         (i32.const 808)
        )
       )
      )
     )
     (i64.gt_s
      (local.get $0)
      (i64.const 0)
     )
    )
   )
   (then
    (return
     (i32.const 5)
    )
   )
  )
  (if
   (i32.eqz
    (i64.gt_s
     (i64.load
      (i32.const 152)
     )
     (i64.const 0)
    )
   )
   (then
    (return
     (i32.const 6)
    )
   )
  )
  (local.set $0
   (block (result i64)
    (local.set $0
     (block (result i64)
      (if
       (i64.eqz
        (i64.load
         (i32.const 808)
        )
       )
       (then
        (return
         (i32.const 7)
        )
       )
      )
      (if
       (i32.and
        (i64.eq
         (i64.load
          (i32.const 800)
         )
         (i64.const -9223372036854775808)
        )
        (i64.eq
         (i64.load
          (i32.const 808)
         )
         (i64.const -1)
        )
       )
       (then
        (return
         (i32.const 8)
        )
       )
      )
      (i64.div_s
       (i64.load
        (i32.const 800)
       )
       (i64.load
        (i32.const 808)
       )
      )
     )
    )
    (block (result i64)
     (local.set $1
      (i64.sub
       (i64.load
        (i32.const 168)
       )
       (local.get $0)
      )
     )
     (if
      (i64.lt_s
       (i64.and
        (i64.xor
         (i64.load
          (i32.const 168)
         )
         (local.get $0)
        )
        (i64.xor
         (i64.load
          (i32.const 168)
         )
         (local.get $1)
        )
       )
       (i64.const 0)
      )
      (then
       (return
        (i32.const 8)
       )
      )
     )
     (local.get $1)
    )
   )
  )
  (local.set $2
   (i32.const 1)
  )
  (i64.store
   (i32.const 168)
   (local.get $0)
  )
  (i32.store
   (i32.const 160)
   (local.get $2)
  )
  (i32.const 0)
 )
)
