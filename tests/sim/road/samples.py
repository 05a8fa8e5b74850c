"""Small hand-written OpenDRIVE roads for the road-model tests (built as text, parsed by the reader)."""

from __future__ import annotations

__all__ = ["two_lane_junction", "geometry_road"]

_LANE = """<lane id="{id}" type="{type}"><link>{link}</link>
<width sOffset="0" a="{w}" b="0" c="0" d="0"/>
<roadMark sOffset="0" type="{mark}" color="{color}" weight="standard"{lc}/>{speed}</lane>"""


def _lane(lid, mark="solid", color="white", type_="driving", w=3.5, pred=None, succ=None, lc="", speed=""):
    link = (f'<predecessor id="{pred}"/>' if pred is not None else "") + (
        f'<successor id="{succ}"/>' if succ is not None else "")
    return _LANE.format(id=lid, type=type_, w=w, mark=mark, color=color, link=link,
                        lc=f' laneChange="{lc}"' if lc else "", speed=speed)


def _road(rid, x, y, hdg, length, lanes_left, lanes_right, junction="-1", link="", extra="", center="solid",
          ccolor="yellow"):
    return f"""<road name="r{rid}" length="{length}" id="{rid}" junction="{junction}">
<link>{link}</link><type s="0" type="town"><speed max="50" unit="km/h"/></type>
<planView><geometry s="0" x="{x}" y="{y}" hdg="{hdg}" length="{length}"><line/></geometry></planView>
<lanes><laneSection s="0"><left>{''.join(lanes_left)}</left>
<center><lane id="0" type="none"><roadMark sOffset="0" type="{center}" color="{ccolor}"/></lane></center>
<right>{''.join(lanes_right)}</right></laneSection></lanes>{extra}</road>"""


def two_lane_junction() -> bytes:
    """Road 1 (x 0..100, two lanes each way) -> junction 9 (connecting road 5, 10 m) -> road 2 (x 110..210).

    Road 1 right side: lane -1 and -2 split by a broken white line, -2 outer solid; lane -1 has a 30 km/h
    speed record; a stop sign (+) at s=90 valid for lane -1 only and a crosswalk object at s=95.
    """
    spd = '<speed sOffset="0" max="30" unit="km/h"/>'
    r1_left = [_lane(1, "broken", succ=None), _lane(2, "solid")]
    r1_right = [_lane(-1, "broken", speed=spd), _lane(-2, "solid")]
    sig = """<signals><signal s="90" t="-4" id="s1" name="stop" dynamic="no" orientation="+" zOffset="1.5"
 country="DE" type="206" subtype="-1" value="-1"><validity fromLane="-1" toLane="-1"/></signal>
<signal s="20" t="4" id="s2" name="limit" dynamic="no" orientation="-" country="DE" type="274" subtype="53"
 value="30" unit="km/h"/></signals>
<objects><object id="o1" type="crosswalk" name="cw" s="95" t="-3.5" zOffset="0" hdg="0" length="4" width="7">
<outline><cornerLocal u="-2" v="-3.5" z="0"/><cornerLocal u="2" v="-3.5" z="0"/><cornerLocal u="2" v="3.5" z="0"/>
<cornerLocal u="-2" v="3.5" z="0"/></outline></object></objects>"""
    r1 = _road(1, 0, 0, 0, 100, r1_left, r1_right, link='<successor elementType="junction" elementId="9"/>', extra=sig)
    c_left = [_lane(1, "none", pred=1, succ=1), _lane(2, "none", pred=2, succ=2)]
    c_right = [_lane(-1, "none", pred=-1, succ=-1), _lane(-2, "none", pred=-2, succ=-2)]
    c = _road(5, 100, 0, 0, 10, c_left, c_right, junction="9", center="none",
              link='<predecessor elementType="road" elementId="1" contactPoint="end"/>'
                   '<successor elementType="road" elementId="2" contactPoint="start"/>')
    r2 = _road(2, 110, 0, 0, 100, [_lane(1, "broken"), _lane(2, "solid")], [_lane(-1, "broken"), _lane(-2, "solid")],
               link='<predecessor elementType="junction" elementId="9"/>')
    j = """<junction id="9" name="j"><connection id="0" incomingRoad="1" connectingRoad="5" contactPoint="start">
<laneLink from="-1" to="-1"/><laneLink from="-2" to="-2"/></connection>
<connection id="1" incomingRoad="2" connectingRoad="5" contactPoint="end">
<laneLink from="1" to="1"/><laneLink from="2" to="2"/></connection></junction>"""
    return f"""<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="6" name="t"/>
{r1}{c}{r2}{j}</OpenDRIVE>""".encode()


def geometry_road(geometry_xml: str, length: float) -> bytes:
    """One road with a single given planView geometry and one 3.5 m lane each side."""
    return f"""<?xml version="1.0"?><OpenDRIVE><header revMajor="1" revMinor="6"/>
<road id="g" length="{length}" junction="-1"><planView>
<geometry s="0" x="0" y="0" hdg="0" length="{length}">{geometry_xml}</geometry></planView>
<lanes><laneSection s="0"><left>{_lane(1)}</left><center><lane id="0" type="none"/></center>
<right>{_lane(-1)}</right></laneSection></lanes></road></OpenDRIVE>""".encode()
