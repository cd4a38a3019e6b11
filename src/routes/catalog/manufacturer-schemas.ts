import { errorBodySchema } from './schemas.ts';

/**
 * Route schemas of the catalog's manufacturer list: which catalog items each connected
 * manufacturer supplies, so a consumer knows before activating a vehicle what it can ask for.
 */
export const manufacturerSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'The manufacturer id that vehicle management answers in `manufacturer`.' },
    name: { type: 'string', description: 'Display name.' },
    vinPrefixes: { type: 'array', items: { type: 'string' }, description: 'The VIN prefixes (WMI or longer) whose vehicles this manufacturer connects.' },
    dataItems: {
      type: 'array',
      items: { type: 'string' },
      description:
        'Catalog items (technicalName) this manufacturer supplies, sorted. A vehicle may supply fewer (a combustion car no `sochighlevel`): GET /management/v1/vehicles/{vin}/capabilities says which.',
    },
  },
  required: ['id', 'name', 'vinPrefixes', 'dataItems'],
} as const;

export const listManufacturersSchema = {
  summary: 'List the connected manufacturers and the catalog items each supplies',
  tags: ['catalog'],
  querystring: {
    type: 'object',
    properties: { dataItem: { type: 'string', description: 'A catalog item (technicalName): only the manufacturers that supply it. 400 for a name the catalog does not know.' } },
  },
  response: { 200: { type: 'array', items: manufacturerSchema }, 400: errorBodySchema },
} as const;

export const getManufacturerSchema = {
  summary: 'One connected manufacturer and the catalog items it supplies',
  tags: ['catalog'],
  params: { type: 'object', properties: { manufacturer: { type: 'string' } }, required: ['manufacturer'] },
  response: { 200: manufacturerSchema, 404: errorBodySchema },
} as const;
