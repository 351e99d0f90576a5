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

# Two namesakes whose facts are written alike (short notes of what "Ines Varga" did): a bass
# player in the writer's band and a dental hygienist. On average their facts are as alike as
# one person's in two settings, so only the sentence that says the name is shared parts them
# (``shared_names``).
BAND_FACTS = [
    "New bass player in the band, Ines Varga. She reads charts better than all of us.",
    "Ines Varga and I ran the bridge of the new song in the car on the way to the gig.",
    "Ines Varga brought two trays of dumplings to the band's summer barbecue.",
    "Ines Varga has the flu and wants me to sing her harmony at the street festival.",
    "Ines Varga is organising our merch table for the winter market. I'm doing the badges.",
    "Ines Varga and I went over the harmonies at my flat on Sunday.",
]
DENTAL_FACTS = [
    "The hygienist who cleaned my teeth is also called Ines Varga, like our bass player.",
    "Ines Varga phoned from the dental practice to book my check-up.",
    "Ines Varga came into the shop in her uniform, straight off work, looking for a bike.",
    "Saw Ines Varga locking her bike outside the dental practice.",
    "Ines Varga stopped me in the street to ask whether the sensitive toothpaste helped.",
    "Ines Varga is leaving the dental practice for a job at the university clinic.",
]
