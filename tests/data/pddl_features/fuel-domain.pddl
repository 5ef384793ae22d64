; A truck that burns fuel per road: numeric fluents (PDDL 2.1 level 2) and a metric.
(define (domain fuel)
  (:requirements :typing :numeric-fluents)
  (:types truck place - object)
  (:predicates (at ?t - truck ?p - place) (road ?a ?b - place) (station ?p - place))
  (:functions (fuel ?t - truck) (capacity ?t - truck) (distance ?a ?b - place) (total-fuel-used))
  (:action drive
    :parameters (?t - truck ?a ?b - place)
    :precondition (and (at ?t ?a) (road ?a ?b) (>= (fuel ?t) (distance ?a ?b)))
    :effect (and (not (at ?t ?a)) (at ?t ?b)
                 (decrease (fuel ?t) (distance ?a ?b))
                 (increase (total-fuel-used) (distance ?a ?b))))
  (:action refuel
    :parameters (?t - truck ?p - place)
    :precondition (and (at ?t ?p) (station ?p) (< (fuel ?t) (capacity ?t)))
    :effect (assign (fuel ?t) (capacity ?t))))
