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

# Two namesakes of a name the text says is shared, one of whom is said to be several things
# that share no word: a retired welder, someone from the rowing club, the boat captain. Each
# is a facet of one rower, not another person (``qualifiers.conflict``).
ROWING_FACTS = [
    "Ola Vestrum, a retired welder, fixed the bent rigger on our coxless four.",
    "Ola Vestrum from the rowing club lent me her spare oars for the regatta.",
    "Ola Vestrum coached the juniors through their first rowing race on the river.",
    "Ola Vestrum and I carried the boat down to the river after the regatta.",
    "Ola Vestrum, our boat captain, wants every rower at the boathouse by six.",
    "At the boathouse Ola Vestrum showed the novices how to feather an oar.",
]
TAX_FACTS = [
    "My tax adviser is also called Ola Vestrum, like the rower.",
    "Ola Vestrum sent back my tax return with three deductions I had missed.",
    "Ola Vestrum wants the receipts for the home office before the tax deadline.",
    "Ola Vestrum filed the quarterly VAT return for the bakery.",
    "Ola Vestrum explained the pension tax relief to me over the phone.",
    "Ola Vestrum checked my self-assessment and found an unpaid tax bill from last year.",
]
