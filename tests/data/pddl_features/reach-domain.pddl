; Derived predicates as PDDL 2.2 allows them: two rules for one predicate, a recursive
; rule (reach is the transitive closure of link), and a predicate of a higher stratum
; reading the negation of a lower one (cut-off).
(define (domain reach)
  (:requirements :derived-predicates :negative-preconditions)
  (:predicates (link ?x ?y) (reach ?x ?y) (cut-off ?x) (home ?x) (visited ?x))
  (:derived (reach ?x ?y) (link ?x ?y))
  (:derived (reach ?x ?y) (exists (?z) (and (link ?x ?z) (reach ?z ?y))))
  (:derived (cut-off ?y) (and (not (home ?y)) (not (exists (?h) (and (home ?h) (reach ?h ?y))))))
  (:action open-link
    :parameters (?x ?y)
    :precondition (and (not (link ?x ?y)) (not (cut-off ?x)))
    :effect (link ?x ?y))
  (:action visit
    :parameters (?y)
    :precondition (and (not (cut-off ?y)) (forall (?h) (imply (home ?h) (reach ?h ?y))))
    :effect (visited ?y)))
