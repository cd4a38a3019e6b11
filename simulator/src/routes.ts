import type { RouteName } from './scenario-types.ts';

/**
 * Roads the virtual vehicles drive, as polylines of real places between Karlsruhe, Bruchsal,
 * Heidelberg and Mannheim. A vehicle drives its route back and forth: its position is the
 * point at (distance travelled + offset) along the route, folded at both ends.
 */

interface Waypoint {
  lat: number;
  lon: number;
  place: string;
  city: string;
}

const wp = (lat: number, lon: number, place: string, city: string): Waypoint => ({ lat, lon, place, city });

const WAYPOINTS: Record<RouteName, Waypoint[]> = {
  'karlsruhe-mannheim': [
    wp(49.00937, 8.40444, 'Marktplatz', 'Karlsruhe'),
    wp(49.00898, 8.41796, 'Durlacher Tor', 'Karlsruhe'),
    wp(49.0025, 8.455, 'Durlacher Allee', 'Karlsruhe'),
    wp(49.01530, 8.49710, 'Grötzingen', 'Karlsruhe'),
    wp(49.0514, 8.5297, 'Bahnhofstraße', 'Weingarten (Baden)'),
    wp(49.0889, 8.5556, 'Untergrombach', 'Bruchsal'),
    wp(49.1243, 8.5979, 'Bahnhofplatz', 'Bruchsal'),
    wp(49.157, 8.6239, 'Ubstadt', 'Ubstadt-Weiher'),
    wp(49.212, 8.644, 'Langenbrücken', 'Bad Schönborn'),
    wp(49.2271, 8.6524, 'Mingolsheim', 'Bad Schönborn'),
    wp(49.2944, 8.6968, 'Hauptstraße', 'Wiesloch'),
    wp(49.3233, 8.6961, 'Nußloch', 'Nußloch'),
    wp(49.3478, 8.6913, 'Rathausstraße', 'Leimen'),
    wp(49.386, 8.685, 'Rohrbach', 'Heidelberg'),
    wp(49.4094, 8.6935, 'Bismarckplatz', 'Heidelberg'),
    wp(49.4241, 8.6376, 'Wieblingen', 'Heidelberg'),
    wp(49.453, 8.606, 'Edingen', 'Edingen-Neckarhausen'),
    wp(49.4624, 8.561, 'Seckenheim', 'Mannheim'),
    wp(49.4755, 8.513, 'Neuostheim', 'Mannheim'),
    wp(49.4839, 8.4759, 'Wasserturm', 'Mannheim'),
    wp(49.4875, 8.466, 'Paradeplatz', 'Mannheim'),
  ],
  'karlsruhe-city': [
    wp(49.00937, 8.40444, 'Marktplatz', 'Karlsruhe'),
    wp(49.00898, 8.41796, 'Durlacher Tor', 'Karlsruhe'),
    wp(49.0062, 8.4293, 'Gottesauer Platz', 'Karlsruhe'),
    wp(48.996, 8.421, 'Südtangente', 'Karlsruhe'),
    wp(48.9936, 8.4019, 'Hauptbahnhof', 'Karlsruhe'),
    wp(49.0048, 8.329, 'Rheinhafen', 'Karlsruhe'),
    wp(49.027, 8.355, 'Knielingen', 'Karlsruhe'),
    wp(49.0106, 8.37, 'Mühlburg', 'Karlsruhe'),
    wp(49.0095, 8.3943, 'Europaplatz', 'Karlsruhe'),
    wp(49.00937, 8.40444, 'Marktplatz', 'Karlsruhe'),
  ],
  'mannheim-heidelberg': [
    wp(49.4875, 8.466, 'Paradeplatz', 'Mannheim'),
    wp(49.4839, 8.4759, 'Wasserturm', 'Mannheim'),
    wp(49.4755, 8.513, 'Neuostheim', 'Mannheim'),
    wp(49.47, 8.55, 'Seckenheim', 'Mannheim'),
    wp(49.453, 8.606, 'Edingen', 'Edingen-Neckarhausen'),
    wp(49.4241, 8.6376, 'Wieblingen', 'Heidelberg'),
    wp(49.4036, 8.6757, 'Hauptbahnhof', 'Heidelberg'),
    wp(49.4094, 8.6935, 'Bismarckplatz', 'Heidelberg'),
    wp(49.412, 8.71, 'Altstadt', 'Heidelberg'),
  ],
};

const EARTH_KM = 6371.0088;
const rad = (deg: number): number => (deg * Math.PI) / 180;

/** Great-circle distance in km. */
export function haversineKm(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from a to b, degrees clockwise from north in [0, 360). */
export function bearingDeg(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const y = Math.sin(rad(b.lon - a.lon)) * Math.cos(rad(b.lat));
  const x = Math.cos(rad(a.lat)) * Math.sin(rad(b.lat)) - Math.sin(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.cos(rad(b.lon - a.lon));
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
}

export interface Route {
  name: RouteName;
  points: Waypoint[];
  /** cumulative[i]: km from the start to waypoint i. */
  cumulative: number[];
  lengthKm: number;
}

const built = new Map<RouteName, Route>();

export function getRoute(name: RouteName): Route {
  let route = built.get(name);
  if (!route) {
    const points = WAYPOINTS[name];
    const cumulative = [0];
    for (let i = 1; i < points.length; i++) cumulative.push(cumulative[i - 1]! + haversineKm(points[i - 1]!, points[i]!));
    route = { name, points, cumulative, lengthKm: cumulative[cumulative.length - 1]! };
    built.set(name, route);
  }
  return route;
}

export interface RoutePosition {
  lat: number;
  lon: number;
  headingDeg: number;
  /** The nearest named place (for charging-session addresses). */
  place: string;
  city: string;
}

/** Where a vehicle is after `distanceKm` along its route, driving it back and forth. */
export function positionAt(route: Route, distanceKm: number): RoutePosition {
  const lap = 2 * route.lengthKm;
  const d = ((distanceKm % lap) + lap) % lap;
  const outbound = d < route.lengthKm;
  const along = outbound ? d : lap - d;
  // Binary search for the segment holding `along`.
  let lo = 0;
  let hi = route.cumulative.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (route.cumulative[mid]! <= along) lo = mid;
    else hi = mid;
  }
  const a = route.points[lo]!;
  const b = route.points[hi]!;
  const segment = route.cumulative[hi]! - route.cumulative[lo]!;
  const f = segment > 0 ? (along - route.cumulative[lo]!) / segment : 0;
  const forward = bearingDeg(a, b);
  const nearest = f < 0.5 ? a : b;
  return {
    lat: a.lat + (b.lat - a.lat) * f,
    lon: a.lon + (b.lon - a.lon) * f,
    headingDeg: outbound ? forward : (forward + 180) % 360,
    place: nearest.place,
    city: nearest.city,
  };
}
