; Derived predicates (PDDL 2.2) and an (either ...) type.
(define (domain rooms)
  (:requirements :typing :derived-predicates :negative-preconditions)
  (:types room hall - place robot)
  (:predicates (in ?r - robot ?p - place) (door ?a ?b - place) (lit ?p - place)
               (safe ?r - robot))
  (:derived (safe ?r - robot) (exists (?p - place) (and (in ?r ?p) (lit ?p))))
  (:action move
    :parameters (?r - robot ?a - (either room hall) ?b - place)
    :precondition (and (in ?r ?a) (door ?a ?b) (safe ?r))
    :effect (and (not (in ?r ?a)) (in ?r ?b)))
  (:action switch-on
    :parameters (?r - robot ?p - place)
    :precondition (and (in ?r ?p) (not (lit ?p)))
    :effect (lit ?p)))
