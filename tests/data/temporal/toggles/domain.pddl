; A small domain written for planproof's tests (not from the IPC): each plan beside it
; exercises one rule of VAL's temporal semantics (mutex within a happening, invariants,
; duration constraints with tolerance, commuting numeric updates).
(define (domain toggles)
  (:requirements :typing :durative-actions :fluents)
  (:types sw)
  (:predicates (on ?s - sw) (off ?s - sw) (done ?s - sw))
  (:functions (level) (budget))
  (:durative-action turn-on
    :parameters (?s - sw)
    :duration (= ?duration 2)
    :condition (at start (off ?s))
    :effect (and (at start (not (off ?s))) (at end (on ?s))))
  (:durative-action check
    :parameters (?s - sw)
    :duration (and (>= ?duration 1) (<= ?duration 3))
    :condition (and (at start (off ?s)) (over all (not (on ?s))))
    :effect (at end (done ?s)))
  (:durative-action fill
    :parameters (?s - sw)
    :duration (= ?duration 1)
    :condition (at start (>= (budget) 1))
    :effect (and (at start (decrease (budget) 1)) (at end (increase (level) ?duration))))
  (:durative-action reset
    :parameters (?s - sw)
    :duration (>= ?duration 1)
    :condition (at start (on ?s))
    :effect (and (at end (assign (level) 0)) (at end (off ?s)) (at end (not (on ?s)))))
  (:durative-action pour
    :parameters (?s - sw)
    :duration (= ?duration (budget))
    :condition (at start (>= (budget) 1))
    :effect (when (at end (off ?s)) (at end (done ?s))))
  (:action flip
    :parameters (?s - sw)
    :precondition (on ?s)
    :effect (and (not (on ?s)) (off ?s) (increase (level) 1))))
