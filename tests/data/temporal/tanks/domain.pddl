; A small domain written for planproof's tests (not from the IPC): linear continuous
; change (#t), invariants over it, conditions on the changed values at start and end.
(define (domain tanks)
  (:requirements :typing :durative-actions :fluents :continuous-effects)
  (:types tank)
  (:predicates (idle ?t - tank) (full ?t - tank))
  (:functions (level ?t - tank) (capacity ?t - tank) (inflow ?t - tank) (pumped))
  (:durative-action fill
    :parameters (?t - tank)
    :duration (<= ?duration 100)
    :condition (and (at start (idle ?t)) (over all (<= (level ?t) (capacity ?t))))
    :effect (and (at start (not (idle ?t))) (at end (idle ?t))
                 (increase (level ?t) (* #t (inflow ?t)))
                 (increase (pumped) (* 2 #t))))
  (:durative-action drain
    :parameters (?t - tank)
    :duration (<= ?duration 100)
    :condition (over all (> (level ?t) 0))
    :effect (decrease (level ?t) (* #t 1.5)))
  (:durative-action seal
    :parameters (?t - tank)
    :duration (= ?duration 1)
    :condition (and (at start (idle ?t)) (at end (>= (level ?t) (- (capacity ?t) 1))))
    :effect (at end (full ?t))))
