"""Two namesakes known only by what their facts say: a choir director and a locomotive
mechanic, both "Wen Harlow" (``app.resolve.company``)."""

CHOIR_FACTS = [
    "Choir practice started again; Wen Harlow handed out the carols for the Christmas concert.",
    "Wen Harlow made the basses repeat the Easter hymn four times at rehearsal.",
    "At the spring concert Wen Harlow conducted the choir through the last hymn in tears.",
    "Wen Harlow wants the tenors and basses in black shirts for the carol concert.",
    "Wen Harlow booked the church hall for an extra choir rehearsal before the concert.",
    "Wen Harlow, our choir director, picked a new Easter hymn for the sopranos.",
]
ENGINE_FACTS = [
    "Wen Harlow found a cracked coolant line behind the cab heater of the locomotive.",
    "The traction motor on our lead locomotive was swapped by Wen Harlow at the repair shop.",
    "Wen Harlow traced the ground-relay fault to a chafed cable under the locomotive cab floor.",
    "Wen Harlow signed off the brake and wheel repairs on locomotive 2847 at the shop.",
    "At the repair shop Wen Harlow is training two apprentices on the locomotive wheel lathe.",
    "Wen Harlow replaced the locomotive's leaking fuel pump before the night freight run.",
]
