(module
 (type $0 (func (param i32 i32) (result i32)))
 (type $1 (func (param i32 i32 i32) (result i32)))
 (type $2 (func (result i32)))
 (import "env" "memory" (memory $0 1 1))
 (data $0 (i32.const 1464) "\01\00\00\00\01\00\00\00+")
 (export "Shelf.Add" (func $Shelf.Add))
 (export "Shelf.Drop" (func $Shelf.Drop))
 (export "Shelf.Read" (func $Shelf.Read))
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
 (func $list_has_l3_t20__t20 (param $0 i32) (param $1 i32) (result i32)
  (local $2 i32)
  (local $3 i32)
  (block
   (local.set $3
    (i32.load
     (local.get $0)
    )
   )
   (local.set $2
    (i32.const 0)
   )
   (loop $each1
    (block $done0
     (block
      (br_if $done0
       (i32.ge_u
        (local.get $2)
        (local.get $3)
       )
      )
      (if
       (call $text_eq
        (i32.add
         (local.get $0)
         (i32.add
          (i32.const 8)
          (i32.mul
           (local.get $2)
           (i32.const 88)
          )
         )
        )
        (local.get $1)
       )
       (then
        (return
         (i32.const 1)
        )
       )
       (else
        (local.set $2
         (i32.add
          (local.get $2)
          (i32.const 1)
         )
        )
        (br $each1)
       )
      )
     )
    )
   )
  )
  (i32.const 0)
 )
 (func $Shelf.Add (result i32)
  (local $0 i32)
  (local $1 i32)
  (local $2 i64)
  (if
   (i32.gt_u
    (i32.load offset=4
     (i32.const 1376)
    )
    (i32.const 20)
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
     (call $list_has_l3_t20__t20
      (i32.const 160)
      (i32.const 1376)
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
    (block (result i32)
     (local.set $2
      (i64.extend_i32_u
       (i32.load offset=4
        (i32.const 1376)
       )
      )
     )
     (i64.gt_s
      (local.get $2)
      (i64.const 0)
     )
    )
   )
   (then
    (return
     (i32.const 3)
    )
   )
  )
  (block
   (local.set $0
    (block (result i32)
     (local.set $0
      (i32.load
       (i32.const 160)
      )
     )
     (if
      (i32.ge_u
       (local.get $0)
       (i32.const 3)
      )
      (then
       (return
        (i32.const 4)
       )
      )
     )
     (block
      (local.set $1
       (i32.load
        (i32.const 160)
       )
      )
      (memory.copy
       (i32.const 1480)
       (i32.const 160)
       (i32.add
        (i32.const 8)
        (i32.mul
         (local.get $1)
         (i32.const 88)
        )
       )
      )
     )
     (block
      (local.set $1
       (i32.add
        (i32.const 1488)
        (i32.mul
         (local.get $0)
         (i32.const 88)
        )
       )
      )
      (memory.copy
       (local.get $1)
       (i32.const 1376)
       (i32.add
        (i32.load
         (i32.const 1376)
        )
        (i32.const 8)
       )
      )
     )
     (i32.store
      (i32.const 1480)
      (i32.add
       (local.get $0)
       (i32.const 1)
      )
     )
     (i32.const 1480)
    )
   )
   (local.set $1
    (i32.load
     (local.get $0)
    )
   )
   (memory.copy
    (i32.const 768)
    (local.get $0)
    (i32.add
     (i32.const 8)
     (i32.mul
      (local.get $1)
      (i32.const 88)
     )
    )
   )
  )
  (block
   (local.set $0
    (block (result i32)
     (i32.store offset=4
      (i32.const 1752)
      (i32.add
       (i32.load offset=4
        (i32.const 432)
       )
       (i32.load offset=4
        (i32.const 1464)
       )
      )
     )
     (local.set $0
      (i32.load
       (i32.const 432)
      )
     )
     (i32.store
      (i32.const 1752)
      (i32.add
       (local.get $0)
       (i32.load
        (i32.const 1464)
       )
      )
     )
     (memory.copy
      (i32.const 1760)
      (i32.const 440)
      (local.get $0)
     )
     (memory.copy
      (i32.add
       (i32.const 1760)
       (local.get $0)
      )
      (i32.const 1472)
      (i32.load
       (i32.const 1464)
      )
     )
     (i32.const 1752)
    )
   )
   (if
    (i32.gt_u
     (i32.load offset=4
      (local.get $0)
     )
     (i32.const 12)
    )
    (then
     (return
      (i32.const 5)
     )
    )
   )
   (memory.copy
    (i32.const 1040)
    (local.get $0)
    (i32.add
     (i32.load
      (local.get $0)
     )
     (i32.const 8)
    )
   )
  )
  (memory.copy
   (i32.const 160)
   (i32.const 768)
   (i32.add
    (i32.const 8)
    (i32.mul
     (i32.load
      (i32.const 768)
     )
     (i32.const 88)
    )
   )
  )
  (memory.copy
   (i32.const 432)
   (i32.const 1040)
   (i32.add
    (i32.load
     (i32.const 1040)
    )
    (i32.const 8)
   )
  )
  (i32.const 0)
 )
 (func $list_remove_l3_t20__t20 (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (local $3 i32)
  (local $4 i32)
  (local $5 i32)
  (local.set $4
   (i32.const 0)
  )
  (block
   (local.set $5
    (i32.load
     (local.get $0)
    )
   )
   (local.set $3
    (i32.const 0)
   )
   (loop $each1
    (block $done0
     (block
      (br_if $done0
       (i32.ge_u
        (local.get $3)
        (local.get $5)
       )
      )
      (if
       (i32.eqz
        (call $text_eq
         (i32.add
          (local.get $0)
          (i32.add
           (i32.const 8)
           (i32.mul
            (local.get $3)
            (i32.const 88)
           )
          )
         )
         (local.get $1)
        )
       )
       (then
        (memory.copy
         (i32.add
          (local.get $2)
          (i32.add
           (i32.const 8)
           (i32.mul
            (local.get $4)
            (i32.const 88)
           )
          )
         )
         (i32.add
          (local.get $0)
          (i32.add
           (i32.const 8)
           (i32.mul
            (local.get $3)
            (i32.const 88)
           )
          )
         )
         (i32.const 88)
        )
        (local.set $4
         (i32.add
          (local.get $4)
          (i32.const 1)
         )
        )
       )
      )
      (local.set $3
       (i32.add
        (local.get $3)
        (i32.const 1)
       )
      )
      (br $each1)
     )
    )
   )
  )
  (i32.store
   (local.get $2)
   (local.get $4)
  )
  (i32.store offset=4
   (local.get $2)
   (i32.const 0)
  )
  (local.get $2)
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
 (func $list_remove_l2_id__id (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (local $3 i32)
  (local $4 i32)
  (local $5 i32)
  (local.set $4
   (i32.const 0)
  )
  (block
   (local.set $5
    (i32.load
     (local.get $0)
    )
   )
   (local.set $3
    (i32.const 0)
   )
   (loop $each1
    (block $done0
     (block
      (br_if $done0
       (i32.ge_u
        (local.get $3)
        (local.get $5)
       )
      )
      (if
       (i32.eqz
        (call $ident_eq
         (i32.add
          (local.get $0)
          (i32.add
           (i32.const 8)
           (i32.mul
            (local.get $3)
            (i32.const 132)
           )
          )
         )
         (local.get $1)
        )
       )
       (then
        (memory.copy
         (i32.add
          (local.get $2)
          (i32.add
           (i32.const 8)
           (i32.mul
            (local.get $4)
            (i32.const 132)
           )
          )
         )
         (i32.add
          (local.get $0)
          (i32.add
           (i32.const 8)
           (i32.mul
            (local.get $3)
            (i32.const 132)
           )
          )
         )
         (i32.const 132)
        )
        (local.set $4
         (i32.add
          (local.get $4)
          (i32.const 1)
         )
        )
       )
      )
      (local.set $3
       (i32.add
        (local.get $3)
        (i32.const 1)
       )
      )
      (br $each1)
     )
    )
   )
  )
  (i32.store
   (local.get $2)
   (local.get $4)
  )
  (i32.store offset=4
   (local.get $2)
   (i32.const 0)
  )
  (local.get $2)
 )
 (func $Shelf.Drop (result i32)
  (local $0 i32)
  (local $1 i32)
  (if
   (i32.gt_u
    (i32.load offset=4
     (i32.const 1376)
    )
    (i32.const 20)
   )
   (then
    (return
     (i32.const 1)
    )
   )
  )
  (if
   (i32.eqz
    (call $list_has_l3_t20__t20
     (i32.const 160)
     (i32.const 1376)
    )
   )
   (then
    (return
     (i32.const 2)
    )
   )
  )
  (block
   (local.set $0
    (call $list_remove_l3_t20__t20
     (i32.const 160)
     (i32.const 1376)
     (i32.const 1480)
    )
   )
   (local.set $1
    (i32.load
     (local.get $0)
    )
   )
   (memory.copy
    (i32.const 768)
    (local.get $0)
    (i32.add
     (i32.const 8)
     (i32.mul
      (local.get $1)
      (i32.const 88)
     )
    )
   )
  )
  (block
   (local.set $0
    (call $list_remove_l2_id__id
     (i32.const 488)
     (i32.const 16)
     (i32.const 1752)
    )
   )
   (local.set $1
    (i32.load
     (local.get $0)
    )
   )
   (memory.copy
    (i32.const 1096)
    (local.get $0)
    (i32.add
     (i32.const 8)
     (i32.mul
      (local.get $1)
      (i32.const 132)
     )
    )
   )
  )
  (memory.copy
   (i32.const 160)
   (i32.const 768)
   (i32.add
    (i32.const 8)
    (i32.mul
     (i32.load
      (i32.const 768)
     )
     (i32.const 88)
    )
   )
  )
  (memory.copy
   (i32.const 488)
   (i32.const 1096)
   (i32.add
    (i32.const 8)
    (i32.mul
     (i32.load
      (i32.const 1096)
     )
     (i32.const 132)
    )
   )
  )
  (i32.const 0)
 )
 (func $list_has_l2_id__id (param $0 i32) (param $1 i32) (result i32)
  (local $2 i32)
  (local $3 i32)
  (block
   (local.set $3
    (i32.load
     (local.get $0)
    )
   )
   (local.set $2
    (i32.const 0)
   )
   (loop $each1
    (block $done0
     (block
      (br_if $done0
       (i32.ge_u
        (local.get $2)
        (local.get $3)
       )
      )
      (if
       (call $ident_eq
        (i32.add
         (local.get $0)
         (i32.add
          (i32.const 8)
          (i32.mul
           (local.get $2)
           (i32.const 132)
          )
         )
        )
        (local.get $1)
       )
       (then
        (return
         (i32.const 1)
        )
       )
       (else
        (local.set $2
         (i32.add
          (local.get $2)
          (i32.const 1)
         )
        )
        (br $each1)
       )
      )
     )
    )
   )
  )
  (i32.const 0)
 )
 (func $Shelf.Read (result i32)
  (local $0 i64)
  (local $1 i32)
  (local $2 i32)
  (if
   (i32.eqz
    (if (result i32)
     (block (result i32)
      (local.set $0
       (i64.extend_i32_u
        (i32.load
         (i32.const 488)
        )
       )
      )
      (i64.lt_s
       (local.get $0)
       (i64.const 2)
      )
     )
     (then
      (i32.const 1)
     )
     (else
      (call $list_has_l2_id__id
       (i32.const 488)
       (i32.const 16)
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
  (block
   (local.set $1
    (block (result i32)
     (local.set $1
      (i32.load
       (i32.const 488)
      )
     )
     (if
      (i32.ge_u
       (local.get $1)
       (i32.const 2)
      )
      (then
       (return
        (i32.const 2)
       )
      )
     )
     (block
      (local.set $2
       (i32.load
        (i32.const 488)
       )
      )
      (memory.copy
       (i32.const 1480)
       (i32.const 488)
       (i32.add
        (i32.const 8)
        (i32.mul
         (local.get $2)
         (i32.const 132)
        )
       )
      )
     )
     (memory.copy
      (i32.add
       (i32.const 1488)
       (i32.mul
        (local.get $1)
        (i32.const 132)
       )
      )
      (i32.const 16)
      (i32.const 132)
     )
     (i32.store
      (i32.const 1480)
      (i32.add
       (local.get $1)
       (i32.const 1)
      )
     )
     (i32.const 1480)
    )
   )
   (local.set $2
    (i32.load
     (local.get $1)
    )
   )
   (memory.copy
    (i32.const 1096)
    (local.get $1)
    (i32.add
     (i32.const 8)
     (i32.mul
      (local.get $2)
      (i32.const 132)
     )
    )
   )
  )
  (local.set $0
   (block (result i64)
    (local.set $0
     (i64.add
      (i64.load
       (i32.const 760)
      )
      (i64.const 1)
     )
    )
    (if
     (i64.lt_s
      (i64.and
       (i64.xor
        (i64.load
         (i32.const 760)
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
  (memory.copy
   (i32.const 488)
   (i32.const 1096)
   (i32.add
    (i32.const 8)
    (i32.mul
     (i32.load
      (i32.const 1096)
     )
     (i32.const 132)
    )
   )
  )
  (i64.store
   (i32.const 760)
   (local.get $0)
  )
  (i32.const 0)
 )
)
